import { EditorialStudio, type StudioConfig } from '@/components/tool/editorial-studio';

export const EDITORIAL_CONFIG: StudioConfig = {
  slug: 'editorial',
  baseLabel: 'Catalog Image URL',
  basePlaceholder: 'https://… the catalog outfit image',
  processLabel: 'Process Editorial',
  creative: [
    { key: 'sceneComposition', label: 'Scene Composition', placeholder: 'Setting, background, framing…' },
    { key: 'poseAction', label: 'Pose & Action', placeholder: 'What the model does…' },
    { key: 'lighting', label: 'Lighting', placeholder: 'Light source, direction, mood…' },
    { key: 'colorStyle', label: 'Color & Style', placeholder: 'Palette, grading, styling…' },
  ],
  advanced: [
    { key: 'outfitChanges', label: 'Outfit Changes', placeholder: 'e.g. roll up the sleeves' },
    { key: 'modelFeatures', label: 'Model Features', placeholder: 'e.g. short dark hair' },
  ],
  presetFields: ['sceneComposition', 'poseAction', 'lighting', 'colorStyle', 'cameraDetails', 'outfitChanges', 'modelFeatures'],
  promptFields: ['sceneComposition', 'poseAction', 'lighting', 'colorStyle', 'cameraDetails'],
  baseInvalid: { title: 'Validation Error', description: 'Please enter a valid catalog image URL' },
  presetInvalid: { title: 'Invalid File', description: 'The selected file is not a valid preset file' },
  generationFallback: 'Failed to generate editorial image',
  success: { title: 'Editorial image ready', description: 'Your editorial image has been generated successfully' },
};

export function EditorialPage() {
  return <EditorialStudio config={EDITORIAL_CONFIG} />;
}
