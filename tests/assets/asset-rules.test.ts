import { describe, expect, test } from 'bun:test';
import { assetKindOf, assetProblems, pixelBoundProblem, readImageFacts } from '../../src/modules/assets/asset-rules.ts';
import { gif, jpeg, png, pngDeclaring } from './images.ts';

describe('readImageFacts', () => {
  test('reads format and size from PNG and JPEG bytes', () => {
    expect(readImageFacts(png(512, 300))).toEqual({ format: 'png', width: 512, height: 300 });
    expect(readImageFacts(jpeg(1920, 1080))).toEqual({ format: 'jpg', width: 1920, height: 1080 });
    expect(readImageFacts(gif(64, 32))).toEqual({ format: 'gif', width: 64, height: 32 });
  });

  test('finds the JPEG frame header behind large metadata segments', () => {
    expect(readImageFacts(jpeg(1280, 720, { padding: 300_000 }))).toEqual({ format: 'jpg', width: 1280, height: 720 });
  });

  test('reports the displayed size of a JPEG its Exif orientation turns by 90°', () => {
    expect(readImageFacts(jpeg(720, 1280, { orientation: 6 }))).toEqual({ format: 'jpg', width: 1280, height: 720 });
    expect(readImageFacts(jpeg(720, 1280, { orientation: 8 }))).toEqual({ format: 'jpg', width: 1280, height: 720 });
    expect(readImageFacts(jpeg(720, 1280, { orientation: 3 }))).toEqual({ format: 'jpg', width: 720, height: 1280 });
  });

  test('returns null for bytes that are not a readable image, or stop before the size', () => {
    expect(readImageFacts(new Uint8Array())).toBeNull();
    expect(readImageFacts(new TextEncoder().encode('<!doctype html><title>Not found</title>'))).toBeNull();
    expect(readImageFacts(jpeg(1280, 720, { padding: 300_000 }).slice(0, 100_000))).toBeNull();
  });
});

describe('assetKindOf', () => {
  test('maps check fields to image kinds', () => {
    expect(assetKindOf('logoUrl')).toBe('logo');
    expect(assetKindOf('bannerUrl')).toBe('banner');
    expect(assetKindOf('screenshots[0]')).toBe('screenshot');
    expect(assetKindOf('screenshots[5]')).toBe('screenshot');
  });
});

describe('assetProblems', () => {
  test('a square PNG or JPG logo of at least 512x512 is fine', () => {
    expect(assetProblems('logo', { format: 'png', width: 512, height: 512 })).toEqual([]);
    expect(assetProblems('logo', { format: 'jpg', width: 1024, height: 1024 })).toEqual([]);
  });

  test('a logo must be square and at least 512x512', () => {
    expect(assetProblems('logo', { format: 'png', width: 300, height: 300 })).toEqual(['logo must be at least 512x512 (got 300x300)']);
    expect(assetProblems('logo', { format: 'png', width: 800, height: 600 })).toEqual(['logo must be square (got 800x600)']);
    expect(assetProblems('logo', { format: 'png', width: 511, height: 600 })).toEqual([
      'logo must be square (got 511x600)',
      'logo must be at least 512x512 (got 511x600)',
    ]);
  });

  test('the banner must be exactly 1200x600', () => {
    expect(assetProblems('banner', { format: 'jpg', width: 1200, height: 600 })).toEqual([]);
    expect(assetProblems('banner', { format: 'png', width: 2400, height: 1200 })).toEqual(['banner must be 1200x600 (got 2400x1200)']);
    expect(assetProblems('banner', { format: 'png', width: 1200, height: 601 })).toEqual(['banner must be 1200x600 (got 1200x601)']);
  });

  test('screenshots must be at least 1280x720 in both directions', () => {
    expect(assetProblems('screenshot', { format: 'png', width: 1280, height: 720 })).toEqual([]);
    expect(assetProblems('screenshot', { format: 'jpg', width: 2560, height: 1440 })).toEqual([]);
    expect(assetProblems('screenshot', { format: 'png', width: 1279, height: 720 })).toEqual(['screenshot must be at least 1280x720 (got 1279x720)']);
    expect(assetProblems('screenshot', { format: 'png', width: 1280, height: 719 })).toEqual(['screenshot must be at least 1280x720 (got 1280x719)']);
    expect(assetProblems('screenshot', { format: 'png', width: 720, height: 1280 })).toEqual(['screenshot must be at least 1280x720 (got 720x1280)']);
  });

  test('only PNG and JPG are accepted, whatever the size', () => {
    expect(assetProblems('logo', { format: 'gif', width: 512, height: 512 })).toEqual(['format must be PNG or JPG (got gif)']);
    expect(assetProblems('screenshot', { format: 'webp', width: 800, height: 600 })).toEqual([
      'format must be PNG or JPG (got webp)',
      'screenshot must be at least 1280x720 (got 800x600)',
    ]);
  });
});

describe('pixelBoundProblem', () => {
  test('40 megapixels pass; one pixel more, or a header declaring gigapixels, is a problem', () => {
    expect(pixelBoundProblem({ format: 'jpg', width: 8000, height: 5000 })).toBeNull();
    expect(pixelBoundProblem({ format: 'png', width: 8001, height: 5000 })).toBe('image must be at most 40 megapixels (got 8001x5000; not mirrored)');
    const bomb = readImageFacts(pngDeclaring(50_000, 50_000))!;
    expect(bomb).toEqual({ format: 'png', width: 50_000, height: 50_000 });
    expect(pixelBoundProblem(bomb)).toBe('image must be at most 40 megapixels (got 50000x50000; not mirrored)');
  });
});
