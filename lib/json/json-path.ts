/**
 * Renders a JSON path for error messages, in the put path's notation:
 * `body.rows[3].user.id`. Names that are not identifiers are quoted
 * (`body.rows[0]["a b"]`) so the path stays unambiguous.
 */

/** Segments kept at each end of a path before the middle is elided. */
const PATH_EDGE_SEGMENTS = 8;
/** Longest member name shown in full; longer ones are cut (messages stay bounded). */
const MAX_SHOWN_NAME_CHARS = 64;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function segment(part: string | number): string {
  if (typeof part === 'number') return `[${part}]`;
  if (part.length > MAX_SHOWN_NAME_CHARS) {
    return `[${JSON.stringify(part.slice(0, MAX_SHOWN_NAME_CHARS))}…]`;
  }
  return IDENTIFIER.test(part) ? `.${part}` : `[${JSON.stringify(part)}]`;
}

/**
 * `root` followed by `path`. A path deeper than twice PATH_EDGE_SEGMENTS keeps
 * its ends and says how many segments it left out: a 5,000-deep path must not
 * become a 20 KB error message.
 */
export function renderJsonPath(root: string, path: readonly (string | number)[]): string {
  let out = root;
  if (path.length <= 2 * PATH_EDGE_SEGMENTS) {
    for (const part of path) out += segment(part);
    return out;
  }
  for (const part of path.slice(0, PATH_EDGE_SEGMENTS)) out += segment(part);
  out += `…(${path.length - 2 * PATH_EDGE_SEGMENTS} more)…`;
  for (const part of path.slice(-PATH_EDGE_SEGMENTS)) out += segment(part);
  return out;
}
