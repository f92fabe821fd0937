import { isAcceptedCardImageUrl, isVideoUrl, shouldShowPreview } from '@/lib/image-url';

test.each([
  ['https://cdn.example/look', true], // 'http' alone is enough
  ['http://cdn.example/a', true],
  ['cdn.example/photo.jpg', true],
  ['photo.JPEG', true],
  ['img.png?w=200', true],
  ['anim.gif', true],
  ['scan.bmp', true],
  ['pic.webp', true],
  ['', false],
  ['cdn.example/look', false],
  ['drawing.svg', false], // svg is a card-page extension only
  ['notes.txt', false],
])('preview for %p: %p', (text, expected) => {
  expect(shouldShowPreview(text)).toBe(expected);
});

test.each([
  ['https://cdn.example/a/shirt.jpg', true],
  ['https://cdn.example/a/shirt.JPG', true],
  ['https://cdn.example/a/logo.svg', true],
  ['https://cdn.example/a/shirt.webp?width=800#top', true], // the path is what counts
  ['  https://cdn.example/a/shirt.png  ', true],
  ['/media/shirt.bmp', true],
  ['https://cdn.example/a/shirt', false],
  ['https://cdn.example/image?name=shirt.jpg', false], // extension only in the query
  ['https://cdn.example/shirt.jpg/view', false],
  ['https://cdn.example/a/shirt.tiff', false],
  ['', false],
])('card page accepts %p: %p', (text, expected) => {
  expect(isAcceptedCardImageUrl(text)).toBe(expected);
});

test.each([
  ['https://cdn.example/result.mp4', true],
  ['https://cdn.example/result.webm?sig=1', true],
  ['https://cdn.example/result.png', false],
])('video result %p: %p', (url, expected) => {
  expect(isVideoUrl(url)).toBe(expected);
});
