import type { Rng } from '../rng.ts';

/** Small vocabularies: generated text stays searchable by predictable words. */
const WORDS = (
  'forum river garden engine quantum pixel harbor lantern orbit canyon meadow ember glacier signal ' +
  'compass thunder velvet marble cipher falcon willow nebula prairie summit beacon cobalt saffron tundra ' +
  'atlas voyage circuit mosaic puzzle rocket sketch spiral timber violet walnut zephyr bakery chess ' +
  'guitar island jungle kettle ladder magnet novel opera pepper quilt radar sandal tulip umbrella vortex'
).split(' ');

const TITLE_OPENERS = ['How do I', 'Why does', 'Finally finished my', 'Question about', 'TIL about', 'Show and tell:', 'Help with', 'Thoughts on'];

export const USERNAMES = Array.from({ length: 400 }, (_, i) => `${WORDS[i % WORDS.length]}_${WORDS[(i * 7 + 3) % WORDS.length]}${i}`);

export function words(rng: Rng, min: number, max: number): string {
  const n = rng.int(min, max);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(rng.pick(WORDS));
  return out.join(' ');
}

export function title(rng: Rng): string {
  return `${rng.pick(TITLE_OPENERS)} ${words(rng, 2, 7)}`;
}

export function slugOf(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 50) || '_'
  );
}

export const VOCABULARY: readonly string[] = WORDS;
