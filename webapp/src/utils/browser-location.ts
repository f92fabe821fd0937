/** Full-page navigation, e.g. to the server-side sign-in flow. Wrapped so tests can observe it. */
export function assignLocation(url: string): void {
  window.location.assign(url);
}
