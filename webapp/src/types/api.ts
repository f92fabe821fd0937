export type Organization = {
  id: number;
  name: string;
};

/** Body of GET /api/me/ for a signed-in user. */
export type Me = {
  email: string;
  organization: Organization | null;
  is_staff: boolean;
};

/** Error body shape shared by every backend endpoint. */
export type ApiErrorBody = {
  error: string;
  message: string;
  fields?: Record<string, string[] | string>;
};
