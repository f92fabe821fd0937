import { useCallback, useState } from 'react';

import { type ToastInput, useToast } from '@/components/ui/toast';
import { type BatchSubmitted, getInputUrls, submitCards } from '@/lib/batches';
import { cardFieldErrors, serverMessage } from '@/lib/http-status';
import { useSubmit } from '@/lib/submit';

export type BatchPhase = 'editing' | 'processing' | 'success';

type BatchRunOptions = {
  endpoint: string;
  /** Toast for a refused or failed request. */
  failureToast: (error: unknown) => ToastInput;
  successToast?: (batch: BatchSubmitted) => ToastInput;
};

type CardsSubmission = { ids: string[]; payload: unknown[] };

/**
 * A card tool's run: processing overlay while the request is out, then the success overlay
 * with the batch (whose jobs the page then follows), or back to editing with the error: the
 * toast, the server's message and the per-card field errors keyed by card id.
 */
export function useBatchRun({ endpoint, failureToast, successToast }: BatchRunOptions) {
  const { toast } = useToast();
  const submit = useSubmit(({ payload }: CardsSubmission) => submitCards(endpoint, payload));
  // The last accepted batch stays on the page below the form, through Start New and a refused run.
  const [batch, setBatch] = useState<BatchSubmitted | null>(null);
  const [done, setDone] = useState(false);
  const phase: BatchPhase = submit.isPending ? 'processing' : done ? 'success' : 'editing';

  const { mutate, reset } = submit;
  const run = useCallback(
    (ids: string[], payload: unknown[]) => {
      setDone(false);
      mutate(
        { ids, payload },
        {
          onSuccess: (submitted) => {
            setBatch(submitted);
            setDone(true);
            if (successToast) toast(successToast(submitted));
          },
          onError: (error) => toast({ ...failureToast(error), variant: 'destructive' }),
        },
      );
    },
    [mutate, failureToast, successToast, toast],
  );

  const error = submit.isError ? submit.error : null;
  const errorMessage = error ? serverMessage(error) : null;
  const ids = submit.variables?.ids ?? [];
  const fieldErrors = new Map(
    error ? [...cardFieldErrors(error)].filter(([index]) => ids[index]).map(([index, messages]) => [ids[index], messages]) : [],
  );

  /** Start-new: back to editing; the batch stays on the page below the form. */
  const startNew = useCallback(() => {
    setDone(false);
    reset();
  }, [reset]);

  return { phase, batch, errorMessage, fieldErrors, run, startNew, clearErrors: reset };
}

type UrlsOptions = {
  endpoint: string;
  onUrls: (urls: string[]) => number;
  successToast: (created: number, fetched: number) => ToastInput;
  failureToast: (error: unknown) => ToastInput;
};

/** Get URLs: the images of the tool's input drive folder become cards. */
export function useGetUrls({ endpoint, onUrls, successToast, failureToast }: UrlsOptions) {
  const { toast } = useToast();
  const [loading, setLoading] = useState(false);
  const fetchUrls = useCallback(async () => {
    setLoading(true);
    try {
      const items = await getInputUrls(endpoint);
      const urls = (Array.isArray(items) ? items : []).map((item) => item?.img_url).filter((url): url is string => Boolean(url));
      const created = onUrls(urls);
      toast(successToast(created, urls.length));
    } catch (error) {
      toast({ ...failureToast(error), variant: 'destructive' });
    } finally {
      setLoading(false);
    }
  }, [endpoint, onUrls, successToast, failureToast, toast]);
  return { fetchUrls, loading };
}
