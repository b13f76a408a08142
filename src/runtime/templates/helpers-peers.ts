/**
 * Template helpers under the names Mockoon and WireMock give them, where Mockyard's own table has no
 * equivalent yet (docs/templates.md "Mockoon" and "WireMock" mapping tables).
 */
import { type HelperSpec, pure } from './helper-types.js';
import { same } from './helpers-logic.js';
import { formatDate } from './helpers-random.js';
import { checkSize, forbidden, isPlainObject, str, toList, toNumber, toText, walk } from './values.js';

function matches(item: unknown, f: unknown): boolean {
  if (isPlainObject(f)) return Object.entries(f).every(([k, v]) => same(walk(item, k.split('.')), v));
  return same(item, f);
}

const parsed = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
};

export const PEER_HELPERS: readonly HelperSpec[] = [
  pure(
    'arrays',
    'find',
    'find list match',
    'The first item equal to the value or matching the object (Mockoon).',
    '{{lookup (find (array (object id=1) (object id=2)) (object id=2)) "id"}}',
    '2',
    ([l, f]) => toList(l).find((x) => matches(x, f)),
  ),
  pure(
    'arrays',
    'some',
    'some list match',
    'True when some item equals the value or matches the object (Mockoon).',
    '{{some (array 1 2) 2}}',
    'true',
    ([l, f]) => toList(l).some((x) => matches(x, f)),
  ),
  pure(
    'strings',
    'capitalizeFirst',
    'capitalizeFirst text',
    'First letter upper case (WireMock).',
    '{{capitalizeFirst "ada lovelace"}}',
    'Ada lovelace',
    ([a]) => (a === undefined ? undefined : str(a).charAt(0).toUpperCase() + str(a).slice(1)),
  ),
  pure(
    'strings',
    'center',
    'center text width [filler]',
    'Centred in `width` characters (WireMock).',
    '[{{center "ab" 6}}]',
    '[  ab  ]',
    ([a, n, f], _h, st) => {
      const s = a === undefined ? '' : str(a);
      const w = Math.trunc(toNumber(n));
      if (!Number.isFinite(w) || w <= s.length) return s;
      checkSize(st, w);
      const fill = f === undefined ? ' ' : str(f);
      const left = Math.floor((w - s.length) / 2);
      return s.padStart(s.length + left, fill).padEnd(w, fill);
    },
  ),
  pure(
    'strings',
    'cut',
    'cut text remove',
    'The text without any occurrence of `remove` (WireMock).',
    '{{cut "a-b-c" "-"}}',
    'abc',
    ([a, r]) =>
      a === undefined ? undefined : r === undefined || str(r) === '' ? str(a) : str(a).split(str(r)).join(''),
  ),
  pure(
    'strings',
    'stripTags',
    'stripTags text',
    'The text without HTML tags (WireMock).',
    '{{stripTags "<b>bold</b>"}}',
    'bold',
    ([a]) => (a === undefined ? undefined : str(a).replace(/<[^>]*>/g, '')),
  ),
  pure(
    'logic',
    'yesno',
    'yesno value [yes] [no]',
    '"yes" or "no" (or the texts given) by the value (WireMock).',
    '{{yesno true}}',
    'yes',
    ([a, y, n]) => (a ? (y === undefined ? 'yes' : y) : n === undefined ? 'no' : n),
  ),
  pure(
    'strings',
    'wordWrap',
    'wordWrap text width',
    'Lines of at most `width` characters, broken between words (WireMock).',
    '{{wordWrap "aa bb cc" 5}}',
    'aa bb\ncc',
    ([a, n]) => {
      if (a === undefined) return undefined;
      const w = Math.max(1, Math.trunc(toNumber(n)) || 80);
      const lines: string[] = [];
      let line = '';
      for (const word of str(a).split(/\s+/)) {
        if (line !== '' && line.length + 1 + word.length > w) {
          lines.push(line);
          line = word;
        } else line = line === '' ? word : `${line} ${word}`;
      }
      lines.push(line);
      return lines.join('\n');
    },
  ),
  pure(
    'math',
    'numberFormat',
    'numberFormat n [decimals]',
    'n with thousands separators (en-US) and fixed decimals (WireMock).',
    '{{numberFormat 1234567.891 2}}',
    '1,234,567.89',
    ([a, d]) => {
      const n = toNumber(a);
      if (!Number.isFinite(n)) return undefined;
      const digits = d === undefined ? undefined : Math.min(20, Math.max(0, Math.trunc(toNumber(d)) || 0));
      return n.toLocaleString(
        'en-US',
        digits === undefined ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits },
      );
    },
  ),
  pure(
    'strings',
    'stringFormat',
    'stringFormat format values…',
    'The format with `%s` / `%d` replaced by the values in turn (WireMock).',
    '{{stringFormat "%s has %d items" "cart" 3}}',
    'cart has 3 items',
    ([f, ...vals], _h, st) => {
      if (f === undefined) return undefined;
      let i = 0;
      const out = str(f).replace(/%[sd]/g, () => toText(vals[i++]));
      checkSize(st, out.length);
      return out;
    },
  ),
  pure(
    'arrays',
    'jsonMerge',
    'jsonMerge a b',
    'Two objects (or JSON texts) merged, b winning (WireMock).',
    '{{jsonMerge "{\\"a\\":1}" "{\\"b\\":2}"}}',
    '{"a":1,"b":2}',
    ([a, b]) => {
      const x = parsed(a);
      const y = parsed(b);
      if (!isPlainObject(x) || !isPlainObject(y)) return undefined;
      return Object.fromEntries([...Object.entries(x), ...Object.entries(y)].filter(([k]) => !forbidden(k)));
    },
  ),
  pure(
    'arrays',
    'jsonRemove',
    'jsonRemove object key',
    'The object (or JSON text) without one key (WireMock; a key, not a JSONPath).',
    '{{jsonRemove "{\\"a\\":1,\\"b\\":2}" "a"}}',
    '{"b":2}',
    ([a, k]) => {
      const x = parsed(a);
      if (!isPlainObject(x)) return undefined;
      const key = str(k).replace(/^\$\./, '');
      return Object.fromEntries(Object.entries(x).filter(([name]) => name !== key && !forbidden(name)));
    },
  ),
  pure(
    'arrays',
    'jsonArrayAdd',
    'jsonArrayAdd list value',
    'The list (or JSON text) with the value appended (WireMock).',
    '{{jsonArrayAdd "[1]" 2}}',
    '[1,2]',
    ([l, v]) => [...toList(l), parsed(v) ?? v],
  ),
  {
    name: 'time',
    family: 'dates',
    signature: 'time from to [format]',
    description: "A random time of day between two times ('09:00' '17:30'), as HH:mm or in a format (Mockoon).",
    example: "{{time '09:00' '09:00'}}",
    output: '09:00',
    random: true,
    fn: ([a, b, f], _h, st) => {
      const ms = (v: unknown) => {
        const m = /^([0-9]{1,2}):([0-9]{2})(?::([0-9]{2}))?$/.exec(str(v ?? ''));
        return m ? (Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0)) * 1000 : Number.NaN;
      };
      const lo = a === undefined ? 0 : ms(a);
      const hi = b === undefined ? 86_399_000 : ms(b);
      if (Number.isNaN(lo) || Number.isNaN(hi)) return undefined;
      const t = Math.floor(lo + st.ctx.rng() * (hi - lo));
      return formatDate(new Date(t), f === undefined || typeof f === 'object' ? 'HH:mm' : f);
    },
  },
  pure(
    'logic',
    'log',
    'log value…',
    'Renders nothing (Handlebars writes to a console Mockyard does not have).',
    '[{{log "x"}}]',
    '[]',
    () => undefined,
  ),
];
