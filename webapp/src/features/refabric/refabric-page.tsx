import { ImageCardToolPage, SelectField } from '@/components/tool/image-card-tool-page';

export const FABRICS = [
  'acrylic', 'alpaca', 'canvas', 'cashmere', 'chiffon', 'cotton', 'cupro', 'denim', 'fleece', 'jersey', 'leather', 'linen', 'lyocell',
  'modal', 'mohair', 'nylon', 'organza', 'polyester', 'silk', 'spandex', 'suede', 'tulle', 'tweed', 'velvet', 'viscose', 'wool',
] as const;
export const FINISHES = ['glossy', 'matte', 'metallic', 'patterned', 'sheer', 'textured'] as const;
export const REFABRIC_GARMENTS = [
  'accessory', 'blazer', 'blouse', 'cardigan', 'coat', 'dress', 'full-garment', 'hoodie', 'jacket', 'jeans', 'jumpsuit', 'outerwear',
  'polo', 'pullover', 'romper', 'shirt', 'shorts', 'skirt', 'sweater', 'sweatshirt', 'top', 'trousers', 'tshirt',
] as const;
export const REFABRIC_INCOMPLETE = 'Please fill in at least one complete card (URL, fabric type, material finish, and garment type)';

type RefabricCard = { id: string; imageUrl: string; reFabric: string; materialFinish: string; targetGarment: string };

const blank = (): Omit<RefabricCard, 'id'> => ({ imageUrl: '', reFabric: '', materialFinish: '', targetGarment: '' });
const isComplete = (card: RefabricCard) => Boolean(card.imageUrl.trim() && card.reFabric && card.materialFinish && card.targetGarment);
// Run stays disabled while no card has both a URL and a fabric (spec part 1, §5).
const ready = (cards: RefabricCard[]) => cards.some((card) => card.imageUrl.trim() && card.reFabric);

export function RefabricPage() {
  return (
    <ImageCardToolPage<RefabricCard>
      slug="refabric"
      name="Refabric"
      urlsEndpoint="/api/refabricing/urls"
      runEndpoint="/api/refabricing/refabric"
      prep={
        <p>
          Prep: one garment per image. Paste image links into the cards or press Get URLs, then choose the new fabric, its finish and the
          garment to change. Results go to the Output Drive (about 90 seconds per image).
        </p>
      }
      blank={blank}
      isComplete={isComplete}
      incomplete={REFABRIC_INCOMPLETE}
      ready={ready}
      toPayload={(card) => ({
        image_url: card.imageUrl.trim(),
        re_fabric: card.reFabric,
        material_finish: card.materialFinish,
        target_garment: card.targetGarment,
      })}
      fields={(card, update) => (
        <>
          <SelectField id={`${card.id}-fabric`} label="Fabric Type" placeholder="Select fabric" value={card.reFabric} options={FABRICS} onChange={(reFabric) => update({ reFabric })} />
          <SelectField
            id={`${card.id}-finish`}
            label="Material Finish"
            placeholder="Select finish"
            value={card.materialFinish}
            options={FINISHES}
            onChange={(materialFinish) => update({ materialFinish })}
          />
          <SelectField
            id={`${card.id}-garment`}
            label="Garment Type"
            placeholder="Select garment type"
            value={card.targetGarment}
            options={REFABRIC_GARMENTS}
            onChange={(targetGarment) => update({ targetGarment })}
          />
        </>
      )}
    />
  );
}
