import { html as boundHtml } from 'htm/preact';
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/**
 * Views are Preact components written with htm tagged templates: JSX-like markup that Node runs as it is (no build
 * step), with every interpolated value escaped by the renderer, so no page is assembled from raw strings.
 */
export const html: (strings: TemplateStringsArray, ...values: unknown[]) => VNode = boundHtml;

export type View = VNode;
export type Children = ComponentChildren;

/** A whole document. */
export function renderDocument(view: View): string {
  return `<!doctype html>${renderToString(view)}`;
}
