import { describe, expect, it } from 'vitest';
import { forumFixtureFiles, loadForumFixture, mapAndValidateForumPayload } from './fixture-support.ts';

describe('every recorded forum payload maps and validates', () => {
  const files = forumFixtureFiles();

  it('finds the whole recorded set', () => {
    expect(files).toHaveLength(29);
  });

  for (const file of files) {
    it(file, () => {
      const status = file.includes('-403-') ? 403 : 200;
      const counts = mapAndValidateForumPayload(loadForumFixture(file), status);
      const total = counts.posts + counts.comments + counts.subforums + counts.errors;
      expect(total).toBeGreaterThan(0);
    });
  }
});
