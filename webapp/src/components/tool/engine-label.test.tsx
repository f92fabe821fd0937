import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { EngineLabel, LOCAL_PREVIEW, answerJobId, engineLabelText } from '@/components/tool/engine-label';
import { BatchProgressView } from '@/components/tool/batch-progress';
import { DirectResult } from '@/components/tool/job-result';
import { RecentJobsTable } from '@/components/tool/job-log';
import { makeJob, renderTool } from '@/testing/tool-mocks';
import type { JobOutput } from '@/types/api';

test.each([
  ['fashn:tryon-v1.6', 'FASHN · studio'],
  ['fal:fal-ai/leffa/virtual-tryon', 'fal · studio'],
  ['vertex:virtual-try-on-preview-08-04', 'Vertex AI · studio'],
  ['replicate:cuuupid/idm-vton', 'Replicate · studio'],
  ['openai:gpt-image-1', 'OpenAI · studio'],
  ['acme:model-9', 'acme · studio'],
])('a studio result of %s says %s', (engine, text) => {
  expect(engineLabelText({ engine, tier: 'studio' })).toBe(text);
});

test('a local engine of a generative tool is a local preview; a classical tool has no label', () => {
  expect(engineLabelText({ engine: 'local', tier: 'preview' })).toBe(LOCAL_PREVIEW);
  expect(engineLabelText({ engine: 'local', tier: '' })).toBeNull();
  // a job that has not run yet, or an answer of an older server
  expect(engineLabelText({ engine: '', tier: '' })).toBeNull();
  expect(engineLabelText({})).toBeNull();
  expect(engineLabelText(undefined)).toBeNull();
});

test('the label names the engine on hover and renders nothing without a tier', () => {
  const { container, rerender } = render(<EngineLabel job={{ engine: 'fashn:tryon-v1.6', tier: 'studio' }} />);
  expect(screen.getByText('FASHN · studio')).toHaveAttribute('title', 'fashn:tryon-v1.6');
  rerender(<EngineLabel job={{ engine: 'recolor', tier: '' }} />);
  expect(container).toBeEmptyDOMElement();
});

test('an answer names its job by job_id', () => {
  expect(answerJobId({ result1: 'x', job_id: 'j1' })).toBe('j1');
  expect(answerJobId({ result1: 'x' })).toBeNull();
  expect(answerJobId(['x'])).toBeNull();
  expect(answerJobId(null)).toBeNull();
});

const output: JobOutput = { index: 0, filename: 'out.png', content_type: 'image/png', size: 1, sha256: '', url: '/api/jobs/j1/outputs/0' };

test('a direct result, a batch row and a recent job carry the label', () => {
  const studio = makeJob('j1', 'succeeded', { tool: 'virtual-try-on', engine: 'fashn:tryon-v1.6', tier: 'studio', outputs: [output] });
  const preview = makeJob('j2', 'succeeded', { tool: 'virtual-try-on', engine: 'local', tier: 'preview', outputs: [output] });
  const classical = makeJob('j3', 'succeeded', { engine: 'local', tier: '', outputs: [output] });

  const { unmount } = render(
    <DirectResult className="r" direct={{ phase: 'done', output, job: studio }} alt="Result" downloadLabel="Download" newLabel="New" onStartNew={() => {}} placeholder="" />,
  );
  expect(screen.getByRole('region', { name: 'Result' })).toHaveTextContent('FASHN · studio');
  unmount();

  render(<BatchProgressView jobs={[studio, preview, classical]} />);
  const rows = screen.getAllByRole('listitem');
  expect(rows[0]).toHaveTextContent('FASHN · studio');
  expect(rows[1]).toHaveTextContent(LOCAL_PREVIEW);
  expect(rows[2]).not.toHaveTextContent(/studio|preview/);

  render(<RecentJobsTable jobs={[preview]} />);
  expect(screen.getByRole('table')).toHaveTextContent(LOCAL_PREVIEW);
});

test("a studio tool's results carry the label of the job its answer names", async () => {
  const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  renderTool('/editorial', {
    'GET /api/camera-templates/': { body: [] },
    'POST /api/editorial/generate': { body: { result1: PIXEL, job_id: 'e1' } },
    'GET /api/jobs/e1/': { body: makeJob('e1', 'succeeded', { tool: 'editorial', engine: 'openai:gpt-image-1', tier: 'studio' }) },
  });
  await userEvent.type(await screen.findByLabelText('Catalog Image URL'), 'https://cdn.example/look.png');
  await userEvent.click(screen.getByRole('button', { name: 'Process Editorial' }));
  const results = await screen.findByRole('region', { name: /Results/ });
  expect(await within(results).findAllByText('OpenAI · studio')).toHaveLength(3);
});
