import { useCallback } from 'react';

import { CardGrid } from '@/components/tool/card-grid';
import { CardErrors, CardToolWorkspace } from '@/components/tool/card-tool-workspace';
import { ImageUrlInput } from '@/components/tool/image-url-input';
import { ToolPage } from '@/components/tool/tool-page';
import { useToast } from '@/components/ui/toast';
import { useBatchRun, useGetUrls } from '@/hooks/use-batch-run';
import { useLimitedList } from '@/hooks/use-card-list';
import {
  CARD_TOOL_OVERLAY_MESSAGE,
  generationFailedToast,
  noValidCardsToast,
  urlsFailedToast,
  urlsRetrievedToast,
} from '@/lib/card-tool-messages';

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

function Select({ id, label, value, options, placeholder, onChange }: { id: string; label: string; value: string; options: readonly string[]; placeholder: string; onChange: (value: string) => void }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">{placeholder}</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </div>
  );
}

export function RefabricPage() {
  const { toast } = useToast();
  const cards = useLimitedList<RefabricCard>(blank);
  const batch = useBatchRun({ endpoint: '/api/refabricing/refabric', failureToast: generationFailedToast() });
  const onUrls = useCallback(
    (urls: string[]) => {
      cards.replaceAll(urls.map((imageUrl) => ({ ...blank(), imageUrl })));
      return Math.min(urls.length, cards.limits.max);
    },
    [cards],
  );
  const urls = useGetUrls({ endpoint: '/api/refabricing/urls', onUrls, successToast: urlsRetrievedToast, failureToast: urlsFailedToast });
  // Run stays disabled while no card has both a URL and a fabric (spec part 1, §5).
  const runDisabled = batch.phase === 'processing' || cards.items.every((card) => !card.imageUrl.trim() || !card.reFabric);

  const run = () => {
    const complete = cards.items.filter(isComplete);
    if (complete.length === 0) {
      toast(noValidCardsToast(REFABRIC_INCOMPLETE));
      return;
    }
    void batch.run(
      complete.map((card) => card.id),
      complete.map((card) => ({
        image_url: card.imageUrl.trim(),
        re_fabric: card.reFabric,
        material_finish: card.materialFinish,
        target_garment: card.targetGarment,
      })),
    );
  };

  return (
    <ToolPage slug="refabric" busy={batch.phase === 'processing'}>
      <CardToolWorkspace
        slug="refabric"
        prep={
          <p>
            Prep: one garment per image. Paste image links into the cards or press Get URLs, then choose the new fabric, its finish and the
            garment to change. Results go to the Output Drive (about 90 seconds per image).
          </p>
        }
        getUrls={{ onClick: () => void urls.fetchUrls(), loading: urls.loading }}
        cards={
          <CardGrid
            cards={cards.items}
            limits={cards.limits}
            onAdd={cards.add}
            onDuplicate={cards.duplicate}
            onRemove={cards.remove}
            disabled={batch.phase === 'processing'}
            renderCard={(card) => (
              <>
                <ImageUrlInput label="Image URL" mode="card" value={card.imageUrl} onChange={(imageUrl) => cards.update(card.id, { imageUrl })} />
                <Select id={`${card.id}-fabric`} label="Fabric Type" placeholder="Select fabric" value={card.reFabric} options={FABRICS} onChange={(reFabric) => cards.update(card.id, { reFabric })} />
                <Select
                  id={`${card.id}-finish`}
                  label="Material Finish"
                  placeholder="Select finish"
                  value={card.materialFinish}
                  options={FINISHES}
                  onChange={(materialFinish) => cards.update(card.id, { materialFinish })}
                />
                <Select
                  id={`${card.id}-garment`}
                  label="Garment Type"
                  placeholder="Select garment type"
                  value={card.targetGarment}
                  options={REFABRIC_GARMENTS}
                  onChange={(targetGarment) => cards.update(card.id, { targetGarment })}
                />
                <CardErrors messages={batch.fieldErrors.get(card.id)} />
              </>
            )}
          />
        }
        runArea={
          <button type="button" className="primary-button" onClick={run} disabled={runDisabled}>
            Run
          </button>
        }
        phase={batch.phase}
        batch={batch.batch}
        errorMessage={batch.errorMessage}
        overlay={{ title: 'Processing Your Refabric Requests', message: CARD_TOOL_OVERLAY_MESSAGE }}
        startNewLabel="Start New Refabric"
        onStartNew={() => {
          cards.reset();
          batch.startNew();
        }}
      />
    </ToolPage>
  );
}
