import { type CardSelect, CardToolPage } from '@/components/tool/card-tool-page';

export const REFABRIC_INCOMPLETE = 'Please fill in at least one complete card (URL, fabric type, material finish, and garment type)';

type RefabricCard = { id: string; imageUrl: string; reFabric: string; materialFinish: string; targetGarment: string };

const SELECTS: CardSelect<RefabricCard>[] = [
  { key: 'reFabric', choices: 're_fabric', id: 'fabric', label: 'Fabric Type', placeholder: 'Select fabric' },
  { key: 'materialFinish', choices: 'material_finish', id: 'finish', label: 'Material Finish', placeholder: 'Select finish' },
  { key: 'targetGarment', choices: 'target_garment', id: 'garment', label: 'Garment Type', placeholder: 'Select garment type' },
];

const blank = (): Omit<RefabricCard, 'id'> => ({ imageUrl: '', reFabric: '', materialFinish: '', targetGarment: '' });
const isComplete = (card: RefabricCard) => Boolean(card.imageUrl.trim() && card.reFabric && card.materialFinish && card.targetGarment);
// Run stays disabled while no card has both a URL and a fabric (spec part 1, §5).
const ready = (cards: RefabricCard[]) => cards.some((card) => card.imageUrl.trim() && card.reFabric);

export function RefabricPage() {
  return (
    <CardToolPage<RefabricCard>
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
      selects={SELECTS}
    />
  );
}
