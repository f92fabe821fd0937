import { type CardSelect, CardToolPage } from '@/components/tool/card-tool-page';

export const DEFAULT_COLOR = '#dac9b9';
export const RECOLOR_INCOMPLETE = 'Please fill in at least one complete card (URL, color, and garment type)';

type RecolorCard = { id: string; imageUrl: string; targetColor: string; garmentType: string };

const SELECTS: CardSelect<RecolorCard>[] = [{ key: 'garmentType', choices: 'garment_type', id: 'garment', label: 'Garment Type', placeholder: 'Select garment type' }];

const blank = (): Omit<RecolorCard, 'id'> => ({ imageUrl: '', targetColor: DEFAULT_COLOR, garmentType: '' });

/** The picker shows the text when it is a 3 or 6 digit hex, else the default colour. */
export function pickerColor(text: string): string {
  const value = text.trim();
  if (/^#[0-9a-f]{6}$/i.test(value)) return value.toLowerCase();
  if (/^#[0-9a-f]{3}$/i.test(value)) return `#${[...value.slice(1)].map((c) => c + c).join('')}`.toLowerCase();
  return DEFAULT_COLOR;
}

const isComplete = (card: RecolorCard) => Boolean(card.imageUrl.trim() && card.targetColor.trim() && card.garmentType);

export function RecolorPage() {
  return (
    <CardToolPage<RecolorCard>
      slug="recolor"
      name="Recolor"
      urlsEndpoint="/api/recoloring/urls"
      runEndpoint="/api/recoloring/recolor"
      prep={
        <p>
          Prep: one garment per image. Paste image links into the cards or press Get URLs to load the images of the Input Drive, then
          choose the target colour and garment type. Results go to the Output Drive (about 90 seconds per image).
        </p>
      }
      blank={blank}
      isComplete={isComplete}
      incomplete={RECOLOR_INCOMPLETE}
      toPayload={(card) => ({ image_url: card.imageUrl.trim(), target_color: card.targetColor.trim(), garment_type: card.garmentType })}
      selects={SELECTS}
      fields={(card, update, select) => (
        <>
          <div className="field">
            <label htmlFor={`${card.id}-color`}>Target Color</label>
            <div className="color-field">
              <input
                type="color"
                aria-label="Target Color picker"
                value={pickerColor(card.targetColor)}
                onChange={(event) => update({ targetColor: event.target.value })}
              />
              <input
                id={`${card.id}-color`}
                type="text"
                value={card.targetColor}
                placeholder={DEFAULT_COLOR}
                onChange={(event) => update({ targetColor: event.target.value })}
              />
            </div>
          </div>
          {select('garmentType')}
        </>
      )}
    />
  );
}
