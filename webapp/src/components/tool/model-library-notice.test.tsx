import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { type LibraryModel, libraryFit } from '@/lib/library-models';
import { mockFetch } from '@/testing/mock-fetch';
import { renderApp } from '@/testing/render-app';
import { toolPageRoutes } from '@/testing/tool-mocks';

// The lazy-loaded page can take more than findBy's default second to appear on a busy machine.
const PAGE_LOAD = { timeout: 5000 };

const NO_EAR = 'Earfit cannot use this photo: no earlobe is visible (hair, the framing or a turned head hides them).';
const NO_SHOULDERS = 'Baghold cannot use this photo: both shoulders are not in frame.';
const SHOULDER_CARRY = 'Half-length photo: bags are carried on the shoulder, so give the Strap drop (or a handle drop of 18 cm or more).';
const NO_FACE = 'Remodel and Model Swap cannot use this photo: no face is seen.';

const person = (id: string, name: string, fits: LibraryModel['fits']): LibraryModel => ({
  id,
  name,
  gender: 'female',
  height_cm: 172,
  image: `/api/models/${id}/photo`,
  fits,
});

// Mila: a full-length photo every tool can use. Eileen: half-length, no hand, no ear in sight.
const MILA = person('mila', 'Mila', {
  earfit: { ok: true },
  baghold: { ok: true, carry: 'hand' },
  flats: { ok: true, shoes_alone: true },
  remodel: { ok: true },
});
const EILEEN = person('eileen', 'Eileen (sample)', {
  earfit: { ok: false, reason: NO_EAR },
  baghold: { ok: true, carry: 'shoulder', note: SHOULDER_CARRY },
  flats: { ok: true, shoes_alone: false, note: 'Half-length photo: garments are shown on the upper body only.' },
  remodel: { ok: true },
});
// A close head crop: no shoulders, no face the detectors trust.
const CROP = person('crop', 'Crop', {
  earfit: { ok: false, reason: NO_EAR },
  baghold: { ok: false, reason: NO_SHOULDERS },
  flats: { ok: false, reason: 'Flats Ecommerce cannot use this photo: both shoulders are not in frame.' },
  remodel: { ok: false, reason: NO_FACE },
});

const withLibrary = (...models: LibraryModel[]) => toolPageRoutes({ 'GET /api/models/': { body: models } });

test('libraryFit: skipped and carried-differently models, blocked only when none can be used, unjudged models count as usable', () => {
  const fit = libraryFit([MILA, EILEEN], 'baghold');
  expect(fit.skipped).toEqual([]);
  expect(fit.differently).toEqual([{ model: EILEEN, note: SHOULDER_CARRY }]);
  expect(fit.blocked).toBeNull();

  expect(libraryFit([MILA, EILEEN], 'earfit').skipped).toEqual([{ model: EILEEN, reason: NO_EAR }]);
  expect(libraryFit([CROP], 'baghold').blocked).toBe(`No model of your library can be used: Crop: ${NO_SHOULDERS}`);
  const { fits: _ignored, ...unjudged } = CROP;
  expect(libraryFit([unjudged], 'baghold').blocked).toBeNull();
  expect(libraryFit([], 'baghold').blocked).toBeNull(); // the empty-library notice says that
});

test('Earfit lists before the run the models it will skip, and why; Run stays enabled while one model fits', async () => {
  mockFetch(withLibrary(MILA, EILEEN));
  renderApp('/earring-catalog');

  const notice = await screen.findByRole('note', { name: 'Your models for this tool' }, PAGE_LOAD);
  expect(within(notice).getAllByRole('listitem').map((item) => item.textContent)).toEqual([`Eileen (sample) · Skipped: ${NO_EAR}`]);
  expect(screen.getByRole('button', { name: 'Generate Earfit' })).toBeEnabled();
});

test('Baghold says which models carry the bag on the shoulder, and disables Process Bags with the reason when no model can carry one', async () => {
  mockFetch(withLibrary(MILA, EILEEN));
  const first = renderApp('/bag-holder');
  const notice = await screen.findByRole('note', { name: 'Your models for this tool' }, PAGE_LOAD);
  expect(notice).toHaveTextContent(`Eileen (sample) · ${SHOULDER_CARRY}`);
  first.unmount();

  mockFetch(withLibrary(CROP));
  renderApp('/bag-holder');
  const card = await screen.findByRole('listitem', { name: 'Bag Holder 1' }, PAGE_LOAD);
  await userEvent.type(within(card).getByLabelText('Bag Image URL'), 'https://cdn.example/tote.jpg');
  await userEvent.type(within(card).getByLabelText('Width (cm)'), '30');
  await userEvent.type(within(card).getByLabelText('Height (cm)'), '25');
  await userEvent.type(within(card).getByLabelText('Depth (cm)'), '12');
  await userEvent.selectOptions(within(card).getByLabelText('Gender'), 'Female');

  expect(screen.getByText('1 of 1 bag ready')).toBeInTheDocument();
  const process = screen.getByRole('button', { name: 'Process Bags' });
  expect(process).toBeDisabled();
  expect(process).toHaveAccessibleDescription(`No model of your library can be used: Crop: ${NO_SHOULDERS}`);
  expect(await screen.findByRole('note', { name: 'Your models for this tool' })).toHaveTextContent(`Crop · Skipped: ${NO_SHOULDERS}`);
});

test('Flats disables Run with the reason when no library model can be dressed', async () => {
  mockFetch(withLibrary(CROP));
  renderApp('/flats-catalog');

  const run = await screen.findByRole('button', { name: 'Run' }, PAGE_LOAD);
  expect(await screen.findByText(/^No model of your library can be used: Crop: Flats Ecommerce cannot use/)).toBeInTheDocument();
  expect(run).toBeDisabled();
});

test('Remodel disables Run for a chosen model whose photo shows no face, and says why', async () => {
  mockFetch(withLibrary(MILA, CROP));
  renderApp('/remodel');

  expect(await screen.findByRole('note', { name: 'Your models for this tool' }, PAGE_LOAD)).toHaveTextContent(`Crop · Skipped: ${NO_FACE}`);
  await userEvent.click(await screen.findByRole('radio', { name: 'Crop' }));
  const run = screen.getByRole('button', { name: 'Run' });
  expect(run).toBeDisabled();
  expect(run).toHaveAccessibleDescription(`Crop: ${NO_FACE}`);
  await userEvent.click(screen.getByRole('radio', { name: 'Mila' }));
  expect(run).toBeEnabled();
});

test('a Baghold card whose gender has only shoulder-carry models asks for the Strap drop before the run', async () => {
  mockFetch(withLibrary(EILEEN));
  renderApp('/bag-holder');
  const card = await screen.findByRole('listitem', { name: 'Bag Holder 1' }, PAGE_LOAD);
  expect(within(card).queryByRole('note')).toBeNull();

  await userEvent.selectOptions(within(card).getByLabelText('Gender'), 'Female');
  expect(within(card).getByRole('note')).toHaveTextContent(`Eileen (sample): ${SHOULDER_CARRY}`);
  await userEvent.type(within(card).getByLabelText('Strap drop (cm, optional)'), '55');
  expect(within(card).queryByRole('note')).toBeNull();
  // a male bag finds no model here: the server's refusal says so, no carry note is guessed
  await userEvent.clear(within(card).getByLabelText('Strap drop (cm, optional)'));
  await userEvent.selectOptions(within(card).getByLabelText('Gender'), 'Male');
  expect(within(card).queryByRole('note')).toBeNull();
});

test('Model Swap disables Run for a chosen model the Remodel engine cannot use', async () => {
  mockFetch(withLibrary(MILA, CROP));
  renderApp('/model-swapper');

  await userEvent.click(await screen.findByRole('radio', { name: /^Crop/ }, PAGE_LOAD));
  const run = screen.getByRole('button', { name: 'Run' });
  expect(run).toBeDisabled();
  expect(run).toHaveAccessibleDescription(`Crop: ${NO_FACE}`);
  await userEvent.click(screen.getByRole('radio', { name: /^Mila/ }));
  expect(run).toBeEnabled();
});
