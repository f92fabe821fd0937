/** Image URL rules of the spec (part 1, §5). */

const PREVIEW_EXTENSIONS = ['jpg', 'jpeg', 'png', 'gif', 'bmp', 'webp'];
// Card pages also accept SVG.
const CARD_EXTENSIONS = [...PREVIEW_EXTENSIONS, 'svg'];

const PREVIEW_PATTERN = new RegExp(`\\.(${PREVIEW_EXTENSIONS.join('|')})`, 'i');
const CARD_PATH_PATTERN = new RegExp(`\\.(${CARD_EXTENSIONS.join('|')})$`, 'i');

/** A URL preview shows only when the text contains an image extension or 'http'. */
export function shouldShowPreview(text: string): boolean {
  return text.includes('http') || PREVIEW_PATTERN.test(text);
}

/** Card pages accept an image URL only if its path ends in an image extension (svg too). */
export function isAcceptedCardImageUrl(text: string): boolean {
  const value = text.trim();
  if (!value) return false;
  let path: string;
  try {
    path = new URL(value).pathname;
  } catch {
    // Not absolute: judge what comes before any query or fragment.
    path = value.split(/[?#]/)[0];
  }
  return CARD_PATH_PATTERN.test(path);
}

/** Result URLs ending in mp4 or webm are shown as video (spec part 1, §2 "Rebody"). */
export function isVideoUrl(url: string): boolean {
  return /\.(mp4|webm)(?:[?#]|$)/i.test(url);
}
