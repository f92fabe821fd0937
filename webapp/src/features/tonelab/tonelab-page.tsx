import { EditorialStudio, type StudioConfig } from '@/components/tool/editorial-studio';

export const TONELAB_CONFIG: StudioConfig = {
  slug: 'tonelab',
  baseLabel: 'Base Editorial Image URL',
  basePlaceholder: 'https://… the editorial image to re-tone',
  processLabel: 'Process Tonelab',
  creative: [
    { key: 'lighting', label: 'Lighting', placeholder: 'Light source, direction, mood…' },
    { key: 'colorStyle', label: 'Color & Style', placeholder: 'Palette, grading, contrast…' },
  ],
  presetFields: ['lighting', 'colorStyle', 'cameraDetails', 'outfitChanges', 'modelFeatures'],
  promptFields: ['lighting', 'colorStyle', 'cameraDetails'],
  sendsReference: true,
  baseInvalid: { title: 'Validation Error', description: 'Please enter a valid Tonelab URL' },
  presetInvalid: { title: 'Error', description: 'Failed to load preset. Please check the file format.' },
  generationFallback: 'Failed to generate tonelab image',
  success: { title: 'Tonelab image ready', description: 'Your tonelab image has been generated successfully' },
};

export function TonelabPage() {
  return <EditorialStudio config={TONELAB_CONFIG} />;
}
