/**
 * Just enough XML for the E57 XML section: elements, attributes, text, comments and the
 * declaration; no DTDs. E57 XML is written by machines, so anything else is refused.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (whole, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number(entity.slice(1)));
    return ENTITIES[entity] ?? whole;
  });
}

const TAG = /<(\/?)([\w:.-]+)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/y;
const ATTRIBUTE = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

export function parseXml(xml: string): XmlElement {
  const root: XmlElement = { name: '#document', attributes: {}, children: [], text: '' };
  const stack = [root];
  let at = 0;
  while (at < xml.length) {
    const lt = xml.indexOf('<', at);
    const top = stack[stack.length - 1]!;
    if (lt < 0) {
      top.text += decode(xml.slice(at));
      break;
    }
    if (lt > at) top.text += decode(xml.slice(at, lt));
    if (xml.startsWith('<?', lt)) {
      at = xml.indexOf('?>', lt) + 2;
    } else if (xml.startsWith('<!--', lt)) {
      at = xml.indexOf('-->', lt) + 3;
    } else if (xml.startsWith('<![CDATA[', lt)) {
      const end = xml.indexOf(']]>', lt);
      top.text += xml.slice(lt + 9, end);
      at = end + 3;
    } else {
      TAG.lastIndex = lt;
      const match = TAG.exec(xml);
      if (!match) throw new Error(`malformed XML near offset ${lt}`);
      const [whole, closing, name, attributeText, selfClosing] = match;
      if (closing) {
        if (top.name !== name) throw new Error(`XML element </${name}> closes <${top.name}>`);
        stack.pop();
      } else {
        const element: XmlElement = { name: name!, attributes: {}, children: [], text: '' };
        for (const attribute of attributeText!.matchAll(ATTRIBUTE)) {
          element.attributes[attribute[1]!] = decode(attribute[2] ?? attribute[3] ?? '');
        }
        top.children.push(element);
        if (!selfClosing) stack.push(element);
      }
      at = lt + whole.length;
    }
    if (at <= lt) throw new Error('malformed XML: an unterminated declaration or comment');
  }
  if (stack.length !== 1) throw new Error(`XML element <${stack[stack.length - 1]!.name}> is not closed`);
  const [document] = root.children;
  if (!document || root.children.length !== 1) throw new Error('XML must have exactly one root element');
  return document;
}

export function child(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((c) => c.name === name);
}
