import { EditorialStudio, LEAD, type StudioConfig } from '@/components/tool/editorial-studio';

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
  analysisKeys: {
    scene_composition: 'sceneComposition',
    pose_action: 'poseAction',
    lighting: 'lighting',
    color_style: 'colorStyle',
    camera_details: 'cameraDetails',
  },
  promptFields: ['sceneComposition', 'poseAction', 'lighting', 'colorStyle', 'cameraDetails'],
  analyzeUrl: '/api/editorial/analyze',
  generateUrl: '/api/editorial/generate',
  buildBody: (values, base, _reference, originalPrompt) => ({
    outfit: base,
    scene_composition: values.sceneComposition,
    pose_action: values.poseAction,
    lighting: values.lighting,
    color_style: values.colorStyle,
    camera_details: values.cameraDetails,
    outfit_changes: values.outfitChanges,
    model_features: values.modelFeatures,
    lead: LEAD,
    original_prompt: originalPrompt,
  }),
  baseInvalid: { title: 'Validation Error', description: 'Please enter a valid catalog image URL' },
  presetInvalid: { title: 'Invalid File', description: 'The selected file is not a valid preset file' },
  generationFallback: 'Failed to generate editorial image',
  success: { title: 'Editorial image ready', description: 'Your editorial image has been generated successfully' },
  downloadName: (n) => `editorial_${n}.jpg`,
};

export function EditorialPage() {
  return <EditorialStudio config={EDITORIAL_CONFIG} />;
}
