/**
 * Just enough of OGC Well-Known Text (WKT 1 and 2) to find the parts of a coordinate system:
 * a tree of `KEYWORD[arg, ...]` nodes whose leaves keep their source text, so a part can be
 * written back exactly as it was read (for proj4 to parse) and its authority code read.
 */
export interface WktNode {
  keyword: string;
  args: (WktNode | string)[];
}

const TOKEN = /\s*(?:("(?:[^"]|"")*")|([A-Za-z_][A-Za-z0-9_]*)\s*([[(])|([^,\])\s]+)|([,\])]))/y;

export function parseWkt(text: string): WktNode {
  let at = 0;
  const next = (): RegExpExecArray => {
    TOKEN.lastIndex = at;
    const match = TOKEN.exec(text);
    if (!match) throw new Error(`WKT is malformed or cut short near character ${at}`);
    at = TOKEN.lastIndex;
    return match;
  };
  const malformed = () => new Error(`WKT is malformed near character ${at}`);
  const node = (keyword: string, close: string): WktNode => {
    const result: WktNode = { keyword: keyword.toUpperCase(), args: [] };
    for (;;) {
      const [, quoted, opened, bracket, leaf, punctuation] = next();
      if (punctuation === close && result.args.length === 0) return result;
      if (opened) result.args.push(node(opened, bracket === '[' ? ']' : ')'));
      else if (quoted !== undefined || leaf !== undefined) result.args.push((quoted ?? leaf)!);
      else throw malformed();
      const [, , , , , after] = next();
      if (after === close) return result;
      if (after !== ',') throw malformed();
    }
  };
  const [, , keyword, bracket] = next();
  if (!keyword) throw new Error('WKT must start with a keyword');
  const root = node(keyword, bracket === '[' ? ']' : ')');
  if (text.slice(at).replace(/\0/g, '').trim() !== '') throw new Error('WKT has text after its end');
  return root;
}

export function writeWkt(node: WktNode): string {
  return `${node.keyword}[${node.args.map((arg) => (typeof arg === 'string' ? arg : writeWkt(arg))).join(',')}]`;
}

/** A leaf's value: quoted strings unquoted. */
export function wktText(arg: WktNode | string | undefined): string | undefined {
  if (typeof arg !== 'string') return undefined;
  return arg.startsWith('"') ? arg.slice(1, -1).replace(/""/g, '"') : arg;
}

export function wktChildren(node: WktNode, ...keywords: string[]): WktNode[] {
  return node.args.filter((arg): arg is WktNode => typeof arg !== 'string' && keywords.includes(arg.keyword));
}

/** The node's own EPSG code: `AUTHORITY["EPSG","32632"]` (WKT 1) or `ID["EPSG",32632]` (WKT 2). */
export function wktEpsgCode(node: WktNode): number | undefined {
  for (const id of wktChildren(node, 'AUTHORITY', 'ID')) {
    if (wktText(id.args[0])?.toUpperCase() !== 'EPSG') continue;
    const code = Number(wktText(id.args[1]));
    if (Number.isInteger(code) && code > 0) return code;
  }
  return undefined;
}

export function wktName(node: WktNode): string | undefined {
  return wktText(node.args[0]);
}
