import { EditorialStudio, LEAD, type StudioConfig } from '@/components/tool/editorial-studio';

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
  analysisKeys: { lighting: 'lighting', color_style: 'colorStyle', camera_details: 'cameraDetails' },
  promptFields: ['lighting', 'colorStyle', 'cameraDetails'],
  analyzeUrl: '/api/tonelab/analyze',
  generateUrl: '/api/tonelab/generate',
  buildBody: (values, base, reference, originalPrompt) => ({
    outfit: base,
    ...(reference ? { reference } : {}),
    lighting: values.lighting,
    color_style: values.colorStyle,
    camera_details: values.cameraDetails,
    outfit_changes: values.outfitChanges,
    model_features: values.modelFeatures,
    lead: LEAD,
    original_prompt: originalPrompt,
  }),
  baseInvalid: { title: 'Validation Error', description: 'Please enter a valid Tonelab URL' },
  presetInvalid: { title: 'Error', description: 'Failed to load preset. Please check the file format.' },
  generationFallback: 'Failed to generate tonelab image',
  success: { title: 'Tonelab image ready', description: 'Your tonelab image has been generated successfully' },
  downloadName: (n) => `tonelab_${n}.jpg`,
};

export function TonelabPage() {
  return <EditorialStudio config={TONELAB_CONFIG} />;
}
