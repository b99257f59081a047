import type { ArticleBlock, ArticleEntity, ArticleMedia } from '../shapes/microblog-shapes.ts';
import { MICROBLOG_SITE_URL } from './wire.ts';

/**
 * Plain text and Markdown derived from Article blocks. Offsets are UTF-16 (already converted by the mapper), so
 * they index the block text directly.
 */

const MARKERS: Record<string, string> = { Bold: '**', Italic: '*', Strikethrough: '~~', Code: '`' };
const STYLE_ORDER = ['Bold', 'Italic', 'Strikethrough', 'Code'];
const LIST_TYPES = new Set(['unordered-list-item', 'ordered-list-item']);

function embeddedPostUrl(postId: string): string {
  return `${MICROBLOG_SITE_URL}/i/status/${postId}`;
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]~<>]/g, (c) => `\\${c}`);
}

function escapeLineStart(line: string): string {
  return line.replace(/^(\s*)(#{1,6}\s|>|[-+]\s|\d+[.)]\s)/, (_m, ws: string, marker: string) => `${ws}\\${marker}`);
}

/** Inline styles and links of one block as Markdown, with properly nested markers. */
function renderInline(block: ArticleBlock): string {
  const { text } = block;
  const n = text.length;
  const styleAt: Array<Set<string>> = Array.from({ length: n }, () => new Set<string>());
  const linkAt: Array<string | null> = new Array(n).fill(null);
  for (const s of block.styles) {
    if (!MARKERS[s.style]) continue;
    let start = s.offset;
    let end = Math.min(n, s.offset + s.length);
    // CommonMark ignores emphasis markers next to inner whitespace: keep the whitespace outside.
    while (start < end && /\s/.test(text[start])) start++;
    while (end > start && /\s/.test(text[end - 1])) end--;
    for (let i = start; i < end; i++) styleAt[i].add(s.style);
  }
  for (const e of block.entities) {
    if (e.type !== 'LINK' || !e.url) continue;
    for (let i = e.offset; i < Math.min(n, e.offset + e.length); i++) linkAt[i] = e.url;
  }
  let out = '';
  let stack: string[] = [];
  let link: string | null = null;
  const closeAll = () => {
    for (let k = stack.length - 1; k >= 0; k--) out += MARKERS[stack[k]];
    stack = [];
  };
  let i = 0;
  while (i < n) {
    let j = i + 1;
    const key = (p: number) => `${[...styleAt[p]].sort().join(',')}|${linkAt[p] ?? ''}`;
    while (j < n && key(j) === key(i)) j++;
    const styles = STYLE_ORDER.filter((s) => styleAt[i].has(s));
    if (linkAt[i] !== link) {
      closeAll();
      if (link) out += `](${link})`;
      link = linkAt[i];
      if (link) out += '[';
    }
    const firstGone = stack.findIndex((s) => !styles.includes(s));
    if (firstGone >= 0) {
      for (let k = stack.length - 1; k >= firstGone; k--) out += MARKERS[stack[k]];
      stack = stack.slice(0, firstGone);
    }
    for (const s of styles) {
      if (!stack.includes(s)) {
        out += MARKERS[s];
        stack.push(s);
      }
    }
    const chunk = text.slice(i, j);
    out += stack.includes('Code') ? chunk : escapeMarkdown(chunk);
    i = j;
  }
  closeAll();
  if (link) out += `](${link})`;
  return out;
}

function stripFence(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n/, '').replace(/\n?```\s*$/, '').replace(/\n+$/, '');
}

function mediaMarkdown(ids: string[], media: ArticleMedia[], cover: ArticleMedia | null): string[] {
  return ids.flatMap((id) => {
    const m = media.find((x) => x.id === id) ?? (cover?.id === id ? cover : undefined);
    if (!m?.url) return [];
    return m.type === 'photo' ? [`![](${m.url})`] : [`[${m.type}](${m.url})`];
  });
}

/** What an atomic (embed) block shows: one entry per entity, in order. */
function atomicParts(block: ArticleBlock, mode: 'text' | 'markdown', media: ArticleMedia[], cover: ArticleMedia | null): string[] {
  return block.entities.flatMap((e: ArticleEntity) => {
    switch (e.type) {
      case 'DIVIDER':
        return mode === 'markdown' ? ['---'] : [];
      case 'MARKDOWN':
        return e.markdown === null ? [] : [mode === 'markdown' ? e.markdown.replace(/\n+$/, '') : stripFence(e.markdown)];
      case 'POST':
        return e.postId ? [embeddedPostUrl(e.postId)] : [];
      case 'MEDIA':
        return mode === 'markdown' ? mediaMarkdown(e.mediaIds, media, cover) : [];
      case 'LINK':
        return e.url ? [e.url] : [];
      default:
        return [];
    }
  });
}

/** Numbering of ordered list items per depth, restarting after any other block. */
function listNumbers(blocks: ArticleBlock[]): number[] {
  const counters: number[] = [];
  return blocks.map((b) => {
    if (b.type !== 'ordered-list-item') {
      if (!LIST_TYPES.has(b.type)) counters.length = 0;
      return 0;
    }
    counters.length = b.depth + 1;
    counters[b.depth] = (counters[b.depth] ?? 0) + 1;
    return counters[b.depth];
  });
}

/** Blocks of one list, or one run of code lines, are joined by single newlines; everything else by a blank line. */
type Part = { out: string; group: 'list' | 'code' | null };

function join(parts: Part[]): string {
  let result = '';
  parts.forEach((p, idx) => {
    if (idx > 0) result += p.group !== null && p.group === parts[idx - 1].group ? '\n' : '\n\n';
    result += p.out;
  });
  return result;
}

export function renderArticleText(blocks: ArticleBlock[]): string {
  const numbers = listNumbers(blocks);
  const parts: Part[] = [];
  blocks.forEach((b, idx) => {
    if (b.type === 'atomic') {
      for (const p of atomicParts(b, 'text', [], null)) parts.push({ out: p, group: null });
      return;
    }
    if (LIST_TYPES.has(b.type)) {
      const bullet = b.type === 'ordered-list-item' ? `${numbers[idx]}. ` : '• ';
      parts.push({ out: `${'  '.repeat(b.depth)}${bullet}${b.text}`, group: 'list' });
      return;
    }
    parts.push({ out: b.text, group: b.type === 'code-block' ? 'code' : null });
  });
  return join(parts);
}

const HEADINGS: Record<string, string> = { 'header-one': '# ', 'header-two': '## ', 'header-three': '### ' };

export function renderArticleMarkdown(blocks: ArticleBlock[], media: ArticleMedia[], cover: ArticleMedia | null): string {
  const numbers = listNumbers(blocks);
  const parts: Part[] = [];
  for (let idx = 0; idx < blocks.length; idx++) {
    const b = blocks[idx];
    if (b.type === 'atomic') {
      for (const p of atomicParts(b, 'markdown', media, cover)) parts.push({ out: p, group: null });
      continue;
    }
    if (b.type === 'code-block') {
      const lines = [b.text];
      while (blocks[idx + 1]?.type === 'code-block') lines.push(blocks[++idx].text);
      parts.push({ out: `\`\`\`\n${lines.join('\n')}\n\`\`\``, group: null });
      continue;
    }
    const inline = renderInline(b)
      .split('\n')
      .map((line) => escapeLineStart(line));
    if (LIST_TYPES.has(b.type)) {
      const bullet = b.type === 'ordered-list-item' ? `${numbers[idx]}. ` : '- ';
      const indent = '   '.repeat(b.depth);
      parts.push({ out: `${indent}${bullet}${inline.join(`\\\n${indent}${' '.repeat(bullet.length)}`)}`, group: 'list' });
    } else if (b.type === 'blockquote') {
      parts.push({ out: inline.map((l) => `> ${l}`).join('\\\n'), group: null });
    } else {
      parts.push({ out: `${HEADINGS[b.type] ?? ''}${inline.join('\\\n')}`, group: null });
    }
  }
  return join(parts);
}
