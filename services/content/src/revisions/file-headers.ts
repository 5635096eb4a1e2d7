/*
 * How a file's bytes are answered (design.md §4: uploaded bytes are never active content on an
 * origin that holds cookies or tokens). Whoever can edit a space chooses a file's bytes and its
 * stored media type (a change request's insert_files, a Git import's file extension), so neither
 * is trusted:
 *
 * - Only raster images meant for <img> are shown inline, and only with the very type they were
 *   stored as, from an allow-list: no browser runs script from a PNG, JPEG, GIF, WebP or AVIF
 *   (SVG, which can carry script, is not one of them).
 * - Everything else is an attachment (a download, never a document of our origin), sent as
 *   application/octet-stream whatever its stored type: no browser renders or runs that type
 *   anywhere (navigation, frame, object, script), so even a browser that ignored the
 *   attachment would find nothing to run. The saved file keeps its name (and so its
 *   extension), and the API's file object keeps the stored type for clients.
 * - PDF is an attachment too. A PDF viewer is a program of the browser's own, and what it lets
 *   a PDF's scripts and links do differs from one browser to the next (pdf.js in Firefox runs
 *   inside the page's origin); and under `sandbox` Chromium will not start its viewer at all.
 *   A download works everywhere and opens outside our origin.
 * - Every answer carries `Content-Security-Policy: sandbox; default-src 'none'` (even if a
 *   browser made a document of it, the document would have an origin of its own, no script and
 *   no requests) and `X-Content-Type-Options: nosniff` (the type is never guessed from the bytes).
 *   Inline images are `Cross-Origin-Resource-Policy: cross-origin` (published sites on their
 *   own hosts show them); attachments `same-origin` (no other site embeds them).
 */

/** Stored media types shown inline (for <img>): raster images, which carry no script. */
const INLINE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);

/** Every file answer's policy: no script, no requests, no origin of ours even if rendered. */
const FILE_CONTENT_SECURITY_POLICY = "sandbox; default-src 'none'";

/** A Content-Disposition naming the file (ASCII `filename` for old clients, RFC 5987 `filename*`). */
function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

const commonHeaders = {
  'content-security-policy': FILE_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'cache-control': 'private, max-age=300',
};

/** The headers of an uploaded file's download: inline for an allowed image type, else an opaque attachment. */
export function uploadedFileHeaders(file: { name: string; contentType: string }): Record<string, string> {
  const type = file.contentType.trim().toLowerCase();
  if (INLINE_IMAGE_TYPES.has(type)) {
    return {
      ...commonHeaders,
      'content-type': type,
      'content-disposition': contentDisposition('inline', file.name),
      'cross-origin-resource-policy': 'cross-origin',
    };
  }
  return {
    ...commonHeaders,
    'content-type': 'application/octet-stream',
    'content-disposition': contentDisposition('attachment', file.name),
    'cross-origin-resource-policy': 'same-origin',
  };
}

/**
 * The headers of a document we render ourselves (a change request's PDF): its true type, as an
 * attachment under the same policy as uploads (its text and links are the writers').
 */
export function renderedFileHeaders(name: string, contentType: string): Record<string, string> {
  return {
    ...commonHeaders,
    'content-type': contentType,
    'content-disposition': contentDisposition('attachment', name),
    'cross-origin-resource-policy': 'same-origin',
  };
}
