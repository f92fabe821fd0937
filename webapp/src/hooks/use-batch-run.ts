import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';

import { type ToastInput, useToast } from '@/components/ui/toast';
import { type BatchSubmitted, getInputUrls, submitCards } from '@/lib/batches';
import { cardFieldErrors, serverMessage } from '@/lib/http-status';
import { queueKeys } from '@/lib/queues';

export type BatchPhase = 'editing' | 'processing' | 'success';

type BatchRunOptions = {
  endpoint: string;
  /** Toast for a refused or failed request. */
  failureToast: (error: unknown) => ToastInput;
  successToast?: (batch: BatchSubmitted) => ToastInput;
};

/**
 * A card tool's run: processing overlay while the request is out, then the success overlay
 * with the batch (whose jobs the page then follows), or back to editing with the error: the
 * toast, the server's message and the per-card field errors keyed by card id.
 */
export function useBatchRun({ endpoint, failureToast, successToast }: BatchRunOptions) {
  const { toast } = useToast();
  const queryClient = useQueryClient();
  const [phase, setPhase] = useState<BatchPhase>('editing');
  const [batch, setBatch] = useState<BatchSubmitted | null>(null);
  const [errorMessage, setErrorMessage] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Map<string, string[]>>(new Map());

  const run = useCallback(
    async (ids: string[], payload: unknown[]) => {
      setPhase('processing');
      setErrorMessage(null);
      setFieldErrors(new Map());
      try {
        const submitted = await submitCards(endpoint, payload);
        setBatch(submitted);
        setPhase('success');
        if (successToast) toast(successToast(submitted));
        void queryClient.invalidateQueries({ queryKey: queueKeys.all });
      } catch (error) {
        setPhase('editing');
        toast({ ...failureToast(error), variant: 'destructive' });
        setErrorMessage(serverMessage(error));
        const byIndex = cardFieldErrors(error);
        setFieldErrors(new Map([...byIndex].filter(([index]) => ids[index]).map(([index, messages]) => [ids[index], messages])));
      }
    },
    [endpoint, failureToast, successToast, toast, queryClient],
  );

  const clearErrors = useCallback(() => {
    setErrorMessage(null);
    setFieldErrors(new Map());
  }, []);

  /** Start-new: back to editing; the batch stays on the page below the form. */
  const startNew = useCallback(() => {
    setPhase('editing');
    clearErrors();
  }, [clearErrors]);

  return { phase, batch, errorMessage, fieldErrors, run, startNew, clearErrors };
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
