import { type Change, ChangeList, blankChange } from '@/components/tool/card-grid';
import { ImageCardToolPage, SelectField } from '@/components/tool/image-card-tool-page';

export const RESHAPE_AREAS = ['back', 'collar', 'fit', 'hem', 'length', 'neckline', 'shoulders', 'silhouette', 'sleeves', 'waist'] as const;
/** Display names; sent lower-cased. */
export const RESHAPE_GARMENTS = [
  'Blazer', 'Blouse', 'Cardigan', 'Coat', 'Dress', 'Full Garment', 'Hoodie', 'Jacket', 'Jeans', 'Jumpsuit', 'Outerwear', 'Polo',
  'Pullover', 'Romper', 'Shirt', 'Shorts', 'Skirt', 'Sweater', 'Sweatshirt', 'T-Shirt', 'Top', 'Trousers / Pants',
] as const;
export const RESHAPE_INCOMPLETE = 'Please fill in at least one complete card (URL, garment type, and at least one change)';

type ReshapeCard = { id: string; imageUrl: string; targetGarment: string; changes: Change[] };

const blank = (): Omit<ReshapeCard, 'id'> => ({ imageUrl: '', targetGarment: '', changes: [blankChange()] });
const completeChanges = (card: ReshapeCard) => card.changes.filter((change) => change.place && change.instruction.trim());
const isComplete = (card: ReshapeCard) => Boolean(card.imageUrl.trim() && card.targetGarment && completeChanges(card).length > 0);

export function ReshapePage() {
  return (
    <ImageCardToolPage<ReshapeCard>
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
        target_garment: card.targetGarment.toLowerCase(),
        // only complete changes are sent
        changes: completeChanges(card).map((change) => ({ place: change.place, instruction: change.instruction.trim() })),
      })}
      fields={(card, update) => (
        <>
          <SelectField
            id={`${card.id}-garment`}
            label="Target Garment"
            placeholder="Select garment"
            value={card.targetGarment}
            options={RESHAPE_GARMENTS}
            onChange={(targetGarment) => update({ targetGarment })}
          />
          <ChangeList changes={card.changes} places={RESHAPE_AREAS} onChange={(changes) => update({ changes })} />
        </>
      )}
    />
  );
}
