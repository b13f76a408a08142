/** Template helpers: text, encoding and JSON (docs/templates.md). */
import { regexGroups } from '../../domain/regex.js';
import { type HelperSpec, pure } from './helper-types.js';
import { jsonPathRead } from './json-path-lite.js';
import { checkSize, str, toList, toNumber, toText } from './values.js';

/** Text helpers return absent for an absent input, not "undefined". */
const text = (fn: (s: string, args: readonly unknown[]) => unknown) => (args: readonly unknown[]) =>
  args[0] === undefined || args[0] === null ? undefined : fn(str(args[0]), args);

function pad(start: boolean) {
  return (args: readonly unknown[], _hash: unknown, st: Parameters<HelperSpec['fn']>[2]) => {
    const [v, n, filler] = args;
    const s = v === undefined ? '' : str(v);
    const width = Math.trunc(toNumber(n));
    if (!Number.isFinite(width)) return s;
    checkSize(st, width);
    const f = filler === undefined ? ' ' : str(filler);
    return start ? s.padStart(width, f) : s.padEnd(width, f);
  };
}

function parseJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

export const STRING_HELPERS: readonly HelperSpec[] = [
  pure(
    'strings',
    'lowercase',
    'lowercase text',
    'Lower case.',
    '{{lowercase "AbC"}}',
    'abc',
    text((s) => s.toLowerCase()),
    ['lower'],
  ),
  pure(
    'strings',
    'uppercase',
    'uppercase text',
    'Upper case.',
    '{{uppercase "abc"}}',
    'ABC',
    text((s) => s.toUpperCase()),
    ['upper'],
  ),
  pure(
    'strings',
    'capitalize',
    'capitalize text',
    'First letter of each word upper case.',
    '{{capitalize "ada lovelace"}}',
    'Ada Lovelace',
    text((s) => s.replace(/(^|\s)(\S)/g, (_m, sp: string, c: string) => sp + c.toUpperCase())),
    ['capitalizeFully', 'title'],
  ),
  pure(
    'strings',
    'trim',
    'trim text',
    'Without leading and trailing white space.',
    '{{trim "  a  "}}',
    'a',
    text((s) => s.trim()),
  ),
  pure(
    'strings',
    'split',
    'split text separator',
    'A list of the parts (default separator ",").',
    '{{len (split "a,b,c" ",")}}',
    '3',
    text((s, [, sep]) => s.split(sep === undefined ? ',' : str(sep))),
  ),
  pure(
    'strings',
    'join',
    'join list separator',
    'The items joined (default separator ",").',
    '{{join (array "a" "b") "-"}}',
    'a-b',
    ([l, sep]) =>
      toList(l)
        .map(toText)
        .join(sep === undefined || typeof sep === 'object' ? ',' : str(sep)),
  ),
  pure(
    'strings',
    'concat',
    'concat a b…',
    'The values joined into one text.',
    '{{concat "a" 1 "b"}}',
    'a1b',
    (args, _h, st) => {
      // a loop, not map + join: no array per call (S3b calls it fifty times an answer)
      let out = '';
      for (let i = 0; i < args.length; i++) out += toText(args[i]);
      checkSize(st, out.length);
      return out;
    },
  ),
  pure(
    'strings',
    'substr',
    'substr text from [length]',
    'Part of the text from index `from` (JavaScript substr).',
    '{{substr "abcdef" 1 3}}',
    'bcd',
    text((s, [, a, b]) => {
      const from = Math.trunc(toNumber(a)) || 0;
      const n = b === undefined ? undefined : Math.trunc(toNumber(b));
      const start = from < 0 ? Math.max(0, s.length + from) : from;
      return n === undefined || Number.isNaN(n) ? s.slice(start) : s.slice(start, start + Math.max(0, n));
    }),
  ),
  pure(
    'strings',
    'substring',
    'substring text from [to]',
    'Part of the text from index `from` to `to` (WireMock).',
    '{{substring "abcdef" 1 3}}',
    'bc',
    text((s, [, a, b]) =>
      s.substring(Math.trunc(toNumber(a)) || 0, b === undefined ? undefined : Math.trunc(toNumber(b))),
    ),
  ),
  pure(
    'strings',
    'replace',
    'replace text search replacement',
    'Every occurrence of `search` replaced (literal text).',
    '{{replace "a-b-c" "-" "+"}}',
    'a+b+c',
    (args, _h, st) => {
      const [v, a, b] = args;
      if (v === undefined) return undefined;
      const s = str(v);
      const search = str(a);
      const rep = b === undefined ? '' : str(b);
      if (search === '') return s;
      const count = s.split(search).length - 1;
      checkSize(st, s.length + count * (rep.length - search.length));
      return s.replaceAll(search, () => rep);
    },
  ),
  pure(
    'strings',
    'padStart',
    'padStart text width [filler]',
    'Padded on the left to `width` characters.',
    '{{padStart 7 3 "0"}}',
    '007',
    pad(true),
    ['leftPad', 'ljust'],
  ),
  pure(
    'strings',
    'padEnd',
    'padEnd text width [filler]',
    'Padded on the right to `width` characters.',
    '{{padEnd "a" 3 "."}}',
    'a..',
    pad(false),
    ['rightPad', 'rjust'],
  ),
  pure(
    'strings',
    'startsWith',
    'startsWith text prefix',
    'True when the text starts with the prefix.',
    '{{startsWith "mockyard" "mock"}}',
    'true',
    ([a, b]) => a !== undefined && str(a).startsWith(str(b)),
  ),
  pure(
    'strings',
    'endsWith',
    'endsWith text suffix',
    'True when the text ends with the suffix.',
    '{{endsWith "mockyard" "yard"}}',
    'true',
    ([a, b]) => a !== undefined && str(a).endsWith(str(b)),
  ),
  pure(
    'strings',
    'indexOf',
    'indexOf text search',
    'Where the search first occurs (-1 when not).',
    '{{indexOf "abc" "c"}}',
    '2',
    ([a, b]) => (Array.isArray(a) ? a.indexOf(b) : str(a).indexOf(str(b))),
  ),
  pure(
    'strings',
    'regexMatch',
    'regexMatch text pattern',
    'True when the RE2 pattern matches somewhere in the text.',
    '{{regexMatch "order-42" "[0-9]+$"}}',
    'true',
    ([a, p]) => a !== undefined && regexGroups(str(p), str(a)) !== null,
    ['matches'],
  ),
  pure(
    'strings',
    'regexExtract',
    'regexExtract text pattern [group]',
    'The first match of the RE2 pattern (or its numbered group).',
    '{{regexExtract "order-42" "[a-z]+-([0-9]+)" 1}}',
    '42',
    ([a, p, g]) => {
      if (a === undefined) return undefined;
      const groups = regexGroups(str(p), str(a));
      if (groups === null) return undefined;
      const i = g === undefined || typeof g === 'object' ? 0 : Math.trunc(toNumber(g));
      return groups[i] ?? undefined;
    },
  ),
  pure(
    'strings',
    'stringify',
    'stringify value',
    'The value as JSON text (pretty with `pretty=true`).',
    '{{stringify (object a=1)}}',
    '{"a":1}',
    ([a], hash) => (a === undefined ? undefined : JSON.stringify(a, null, hash.pretty === true ? 2 : undefined)),
    ['toJson'],
  ),
  pure(
    'strings',
    'formatJson',
    'formatJson value',
    'The value (or JSON text) as indented JSON (WireMock).',
    '{{formatJson "{\\"a\\":1}"}}',
    '{\n  "a": 1\n}',
    ([a]) => {
      const v = typeof a === 'string' ? parseJson(a) : a;
      return v === undefined ? undefined : JSON.stringify(v, null, 2);
    },
  ),
  pure(
    'strings',
    'parseJson',
    'parseJson text',
    'The value a JSON text holds.',
    '{{lookup (parseJson "{\\"a\\":5}") "a"}}',
    '5',
    ([a]) => (typeof a === 'string' ? parseJson(a) : a),
    ['jsonParse'],
  ),
  pure(
    'strings',
    'json',
    'json value',
    'The value escaped for the inside of a JSON string (no quotes).',
    '"{{json "say \\"hi\\""}}"',
    '"say \\"hi\\""',
    ([a]) => (a === undefined ? undefined : JSON.stringify(toText(a)).slice(1, -1)),
  ),
  pure(
    'strings',
    'jsonPath',
    'jsonPath value path',
    'The value at a JSONPath (`$.items[0].sku`, `$..id`, `[*]`) in a value or JSON text.',
    '{{jsonPath "{\\"items\\":[{\\"sku\\":\\"A1\\"}]}" "$.items[0].sku"}}',
    'A1',
    ([a, p]) => jsonPathRead(typeof a === 'string' ? parseJson(a) : a, str(p)),
  ),
  pure(
    'strings',
    'lookup',
    'lookup value key',
    'The value of one key (or index) of an object or list.',
    '{{lookup (array "a" "b") 1}}',
    'b',
    ([a, k]) => {
      if (a === null || typeof a !== 'object' || k === undefined) return undefined;
      const key = str(k);
      return key === '__proto__' || key === 'constructor' || key === 'prototype' || !Object.hasOwn(a, key)
        ? undefined
        : (a as Record<string, unknown>)[key];
    },
  ),
  pure(
    'strings',
    'abbreviate',
    'abbreviate text width',
    'Cut to `width` characters ending in "..." (WireMock).',
    '{{abbreviate "Mockyard rocks" 8}}',
    'Mocky...',
    text((s, [, n]) => {
      const w = Math.trunc(toNumber(n));
      return !Number.isFinite(w) || s.length <= w ? s : `${s.slice(0, Math.max(0, w - 3))}...`;
    }),
  ),
  pure(
    'strings',
    'slugify',
    'slugify text',
    'Lower-case words joined by "-".',
    '{{slugify "Hello World!"}}',
    'hello-world',
    text((s) =>
      s
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, ''),
    ),
  ),
  pure('strings', 'newline', 'newline', 'A line break (as Mockoon).', 'a{{newline}}b', 'a\nb', () => '\n'),
];

export const ENCODING_HELPERS: readonly HelperSpec[] = [
  pure(
    'encoding',
    'base64',
    'base64 text',
    'The text base64-encoded (UTF-8); `decode=true` decodes (WireMock).',
    '{{base64 "hi"}}',
    'aGk=',
    ([a], hash) => {
      if (a === undefined) return undefined;
      return hash.decode === true
        ? Buffer.from(str(a), 'base64').toString('utf8')
        : Buffer.from(str(a), 'utf8').toString('base64');
    },
    ['base64Encode'],
  ),
  pure(
    'encoding',
    'base64Decode',
    'base64Decode text',
    'The base64 text decoded (UTF-8).',
    '{{base64Decode "aGk="}}',
    'hi',
    text((s) => Buffer.from(s, 'base64').toString('utf8')),
  ),
  pure(
    'encoding',
    'urlEncode',
    'urlEncode text',
    'Percent-encoded for a URL component; `decode=true` decodes (WireMock).',
    '{{urlEncode "a b&c"}}',
    'a%20b%26c',
    ([a], hash) => {
      if (a === undefined) return undefined;
      if (hash.decode !== true) return encodeURIComponent(str(a));
      try {
        return decodeURIComponent(str(a));
      } catch {
        return undefined;
      }
    },
  ),
  pure(
    'encoding',
    'urlDecode',
    'urlDecode text',
    'Percent-decoded.',
    '{{urlDecode "a%20b"}}',
    'a b',
    text((s) => {
      try {
        return decodeURIComponent(s.replaceAll('+', ' '));
      } catch {
        return undefined;
      }
    }),
  ),
];
