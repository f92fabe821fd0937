import { type Change, ChangeList, blankChange } from '@/components/tool/card-grid';
import { type CardSelect, CardToolPage } from '@/components/tool/card-tool-page';
import { useToolChoices } from '@/lib/tools';

/** The garments are sent lower-cased and shown with each word capitalised: 't-shirt' is 'T-Shirt'. */
export const garmentLabel = (value: string) => value.replace(/(^|[\s-])([a-z])/g, (_match, before: string, letter: string) => before + letter.toUpperCase());
export const RESHAPE_INCOMPLETE = 'Please fill in at least one complete card (URL, garment type, and at least one change)';

type ReshapeCard = { id: string; imageUrl: string; targetGarment: string; changes: Change[] };

const SELECTS: CardSelect<ReshapeCard>[] = [
  { key: 'targetGarment', choices: 'target_garment', id: 'garment', label: 'Target Garment', placeholder: 'Select garment', optionLabel: garmentLabel },
];

const blank = (): Omit<ReshapeCard, 'id'> => ({ imageUrl: '', targetGarment: '', changes: [blankChange()] });
const completeChanges = (card: ReshapeCard) => card.changes.filter((change) => change.place && change.instruction.trim());
const isComplete = (card: ReshapeCard) => Boolean(card.imageUrl.trim() && card.targetGarment && completeChanges(card).length > 0);

export function ReshapePage() {
  const areas = useToolChoices('reshape', 'place');
  return (
    <CardToolPage<ReshapeCard>
      slug="reshape"
      name="Reshape"
      urlsEndpoint="/api/reshaping/urls"
      runEndpoint="/api/reshaping/reshape"
      prep={
        <p>
          Prep: one garment per image. For each card choose the garment and list up to 10 changes, each an area and an instruction (e.g.
          sleeves: make them three-quarter length). Results go to the Output Drive (about 90 seconds per image).
        </p>
      }
      blank={blank}
      isComplete={isComplete}
      incomplete={RESHAPE_INCOMPLETE}
      toPayload={(card) => ({
        image_url: card.imageUrl.trim(),
        target_garment: card.targetGarment,
        // only complete changes are sent
        changes: completeChanges(card).map((change) => ({ place: change.place, instruction: change.instruction.trim() })),
      })}
      selects={SELECTS}
      fields={(card, update, select) => (
        <>
          {select('targetGarment')}
          <ChangeList changes={card.changes} places={areas} onChange={(changes) => update({ changes })} />
        </>
      )}
    />
  );
}
