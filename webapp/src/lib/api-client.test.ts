import { ApiError, apiClient } from '@/lib/api-client';
import { mockFetch } from '@/testing/mock-fetch';

afterEach(() => {
  document.cookie = 'csrftoken=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
});

test('error bodies become ApiError with status, code, message and fields', async () => {
  mockFetch({
    'POST /api/jobs/': {
      status: 400,
      body: { error: 'validation_error', message: 'Invalid input', fields: { image_url: ['Required.'] } },
    },
  });

  const error = await apiClient.post('/api/jobs/', { tool: 'recolor' }).catch((e: unknown) => e);

  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({
    status: 400,
    code: 'validation_error',
    message: 'Invalid input',
    fields: { image_url: ['Required.'] },
  });
});

test('non-JSON error bodies still yield an ApiError', async () => {
  mockFetch({ 'GET /api/broken/': () => ({ status: 502 }) });

  const error = await apiClient.get('/api/broken/').catch((e: unknown) => e);

  expect(error).toMatchObject({ status: 502, code: 'http_error', fields: {} });
});

test('unsafe methods send the csrftoken cookie as X-CSRFToken; safe ones do not', async () => {
  document.cookie = 'csrftoken=abc%20123';
  const calls = mockFetch({
    'POST /api/things/': { status: 201, body: { id: 7 } },
    'GET /api/things/': { status: 200, body: [] },
  });

  await expect(apiClient.post('/api/things/', { name: 'x' })).resolves.toEqual({ id: 7 });
  await apiClient.get('/api/things/');

  const [post, get] = calls;
  expect(post.headers['X-CSRFToken']).toBe('abc 123');
  expect(post.headers['Content-Type']).toBe('application/json');
  expect(post.init).toMatchObject({ credentials: 'include', body: '{"name":"x"}' });
  expect(get.headers).not.toHaveProperty('X-CSRFToken');
  expect(get.init.credentials).toBe('include');
});
