import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { bodyOf, renderTool } from '@/testing/tool-mocks';

test('step gating, the lock overlay, markdown with Edit/Done, step 2 and Work from this', async () => {
  const calls = renderTool('/tech-pack', {
    'POST /api/tech-pack/description': { body: { description: '## Overview\n- **Fabric:** linen' } },
    'POST /api/tech-pack/process': { body: { image: 'RESULT' } },
  });
  expect(await screen.findByText('Transform garment descriptions and images into detailed tech packs.')).toBeInTheDocument();
  const process = screen.getByRole('button', { name: 'Process Tech Pack' });
  expect(process).toBeDisabled();
  expect(process).toHaveAttribute('title', 'You must complete "Get Tech Pack Description"');

  await userEvent.click(screen.getByRole('button', { name: 'Get Tech Pack Description' }));
  expect(await screen.findByText('Please enter a text description before proceeding')).toBeInTheDocument();
  expect(calls.filter((call) => call.method === 'POST')).toHaveLength(0);

  await userEvent.type(screen.getByPlaceholderText('Describe the garment you want to generate a tech pack for...'), '  linen shirt  ');
  await userEvent.click(screen.getByRole('button', { name: 'Get Tech Pack Description' }));
  expect(await screen.findByRole('button', { name: '✓ Description Generated' })).toBeDisabled();
  expect(bodyOf(calls.find((call) => call.url === '/api/tech-pack/description')!)).toEqual({ description: 'linen shirt' });
  expect(screen.getByText('DESCRIPTION IS ONLY NEEDED TO GENERATE THE TECH PACK DESCRIPTION')).toBeInTheDocument();
  expect(screen.getByLabelText('Description (Required)')).toBeDisabled();
  expect(screen.getByText('~20 seconds • 100%')).toBeInTheDocument();
  expect(screen.getByRole('heading', { name: 'Overview' })).toBeInTheDocument();
  expect(screen.getByText('Fabric:').tagName).toBe('STRONG');

  await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
  expect(screen.getByText("Click 'Done' to see the formatted version")).toBeInTheDocument();
  await userEvent.type(screen.getByRole('textbox', { name: 'Tech pack description' }), '\n- Buttons');
  await userEvent.click(screen.getByRole('button', { name: 'Done' }));
  expect(screen.getByText('Buttons')).toBeInTheDocument();

  await userEvent.click(screen.getByRole('button', { name: 'Process Tech Pack' }));
  expect(await screen.findByRole('img', { name: 'Tech pack result' })).toHaveAttribute('src', 'data:image/png;base64,RESULT');
  expect(bodyOf(calls.find((call) => call.url === '/api/tech-pack/process')!).tech_pack).toContain('- Buttons');
  expect(screen.getByRole('button', { name: '✓ Tech Pack Processed' })).toBeDisabled();

  await userEvent.click(screen.getByRole('button', { name: 'Work from this Tech Pack' }));
  expect(screen.getByText('Ready to Continue')).toBeInTheDocument();
  expect(screen.getByRole('img', { name: 'Reference image preview' })).toHaveAttribute('src', 'data:image/png;base64,RESULT');
  expect(screen.getByRole('button', { name: 'Process Tech Pack' })).toBeEnabled();

  await userEvent.click(screen.getByRole('button', { name: 'Start New Tech Pack' }));
  expect(screen.getByRole('button', { name: 'Get Tech Pack Description' })).toBeEnabled();
  expect(screen.queryByText('DESCRIPTION IS ONLY NEEDED TO GENERATE THE TECH PACK DESCRIPTION')).toBeNull();
});

test('a failed step 1 shows the spec toast and allows a retry', async () => {
  renderTool('/tech-pack', { 'POST /api/tech-pack/description': { status: 500, body: {} } });
  await userEvent.type(await screen.findByLabelText('Description (Required)'), 'coat');
  await userEvent.click(screen.getByRole('button', { name: 'Get Tech Pack Description' }));
  expect(await screen.findByText('❌ Generation Failed')).toBeInTheDocument();
  expect(screen.getByText('HTTP error! status: 500')).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Get Tech Pack Description' })).toBeEnabled();
});
