/** Template helpers: dates and random values, faker included (docs/templates.md). */
import { callFaker } from '../faker.js';
import type { Hash, HelperSpec } from './helper-types.js';
import { checkSize, forbidden, numberText, type RenderState, str, toList, toNumber } from './values.js';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const TOKEN_RE = /'[^']*'|yyyy|yy|MMMM|MMM|MM|M|dd|d|EEEE|EEE|HH|H|hh|h|mm|m|ss|s|SSS|a|XXX|Z|X/g;

const two = (n: number) => String(n).padStart(2, '0');

/** A date as text: 'yyyy-MM-dd HH:mm' tokens (date-fns and Java alike, in UTC), `epoch` (ms) or `unix` (s); ISO 8601 without a format. */
export function formatDate(d: Date, format: unknown): string | undefined {
  if (Number.isNaN(d.getTime())) return undefined;
  if (format === undefined || format === null || format === '' || typeof format === 'object') return d.toISOString();
  const f = str(format);
  if (f === 'epoch') return numberText(d.getTime());
  if (f === 'unix') return String(Math.floor(d.getTime() / 1000));
  return f.slice(0, 200).replace(TOKEN_RE, (t) => {
    const h = d.getUTCHours();
    switch (t) {
      case 'yyyy':
        return String(d.getUTCFullYear());
      case 'yy':
        return two(d.getUTCFullYear() % 100);
      case 'MMMM':
        return MONTHS[d.getUTCMonth()];
      case 'MMM':
        return MONTHS[d.getUTCMonth()].slice(0, 3);
      case 'MM':
        return two(d.getUTCMonth() + 1);
      case 'M':
        return String(d.getUTCMonth() + 1);
      case 'dd':
        return two(d.getUTCDate());
      case 'd':
        return String(d.getUTCDate());
      case 'EEEE':
        return DAYS[d.getUTCDay()];
      case 'EEE':
        return DAYS[d.getUTCDay()].slice(0, 3);
      case 'HH':
        return two(h);
      case 'H':
        return String(h);
      case 'hh':
        return two(h % 12 || 12);
      case 'h':
        return String(h % 12 || 12);
      case 'mm':
        return two(d.getUTCMinutes());
      case 'm':
        return String(d.getUTCMinutes());
      case 'ss':
        return two(d.getUTCSeconds());
      case 's':
        return String(d.getUTCSeconds());
      case 'SSS':
        return String(d.getUTCMilliseconds()).padStart(3, '0');
      case 'a':
        return h < 12 ? 'AM' : 'PM';
      case 'XXX':
      case 'X':
        return 'Z';
      case 'Z':
        return '+0000';
      default:
        return t.slice(1, -1); // a quoted literal
    }
  });
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const UNIT_NAMES: Record<string, string> = {
  millisecond: 'ms',
  milliseconds: 'ms',
  second: 's',
  seconds: 's',
  sec: 's',
  minute: 'm',
  minutes: 'm',
  min: 'm',
  hour: 'h',
  hours: 'h',
  day: 'd',
  days: 'd',
  week: 'w',
  weeks: 'w',
  month: 'M',
  months: 'M',
  year: 'y',
  years: 'y',
};

/** `'+3 days'`, `'-2h'`, `'1 months'` → a shifted date; null when the text is not an offset. */
export function shiftDate(d: Date, offset: string): Date | null {
  const m = /^([+-]?)\s*([0-9]{1,9})\s*([A-Za-z]+)$/.exec(offset.trim());
  if (!m) return null;
  const unit = UNIT_NAMES[m[3].toLowerCase()] ?? (m[3] === 'M' ? 'M' : m[3].toLowerCase());
  const n = Number(m[2]) * (m[1] === '-' ? -1 : 1);
  const out = new Date(d.getTime());
  if (unit === 'M') out.setUTCMonth(out.getUTCMonth() + n);
  else if (unit === 'y') out.setUTCFullYear(out.getUTCFullYear() + n);
  else if (UNITS[unit] !== undefined) out.setTime(out.getTime() + n * UNITS[unit]);
  else return null;
  return Number.isNaN(out.getTime()) ? null : out;
}

/** Shifts by hash units (`days=1 hours=-2`, as Mockoon's dateTimeShift). */
function shiftByHash(d: Date, hash: Hash): Date {
  let out = d;
  for (const [k, v] of Object.entries(hash)) {
    const n = Math.trunc(toNumber(v));
    if (UNIT_NAMES[k] !== undefined && Number.isFinite(n)) out = shiftDate(out, `${n} ${k}`) ?? out;
  }
  return out;
}

/** A date from a value: a Date, epoch ms, or text Date can read. */
export function toDate(v: unknown, st: RenderState): Date {
  if (v === undefined || v === null || v === '') return new Date(st.ctx.now());
  if (v instanceof Date) return v;
  if (typeof v === 'number') return new Date(v);
  return new Date(str(v));
}

function random(st: RenderState, lo: number, hi: number): number {
  return lo + st.ctx.rng() * (hi - lo);
}

function randomInt(st: RenderState, a: unknown, b: unknown): number | undefined {
  const x = Math.trunc(toNumber(a));
  const y = Math.trunc(toNumber(b));
  if (!Number.isFinite(x) || !Number.isFinite(y)) return undefined;
  const lo = Math.min(x, y);
  const hi = Math.max(x, y);
  return Math.min(hi, lo + Math.floor(st.ctx.rng() * (hi - lo + 1)));
}

const ALPHABETS: Record<string, string> = {
  ALPHANUMERIC: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  ALPHABETIC: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
  NUMERIC: '0123456789',
  HEXADECIMAL: '0123456789abcdef',
  ALPHANUMERIC_AND_SYMBOLS: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*()-_=+[]{};:,.<>?',
};

function randomValue(st: RenderState, hash: Hash): string {
  const type = typeof hash.type === 'string' ? hash.type.toUpperCase() : 'ALPHANUMERIC';
  if (type === 'UUID') return st.ctx.uuid();
  const n = hash.length === undefined ? 36 : Math.max(0, Math.trunc(toNumber(hash.length)) || 0);
  checkSize(st, n);
  const alphabet = ALPHABETS[type] ?? ALPHABETS.ALPHANUMERIC;
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[Math.floor(st.ctx.rng() * alphabet.length)];
  return hash.uppercase === true ? out.toUpperCase() : out;
}

const rnd = (
  family: 'dates' | 'random',
  name: string,
  signature: string,
  description: string,
  example: string,
  fn: HelperSpec['fn'],
  aliases?: readonly string[],
): HelperSpec => ({
  name,
  family,
  signature,
  description,
  example,
  random: true,
  fn,
  aliases,
});

/** `faker "module.method" args…`: JSON-literal or hash arguments (`min=1 max=9` → one object). */
function fakerHelper([path, ...rest]: readonly unknown[], hash: Hash, st: RenderState): unknown {
  if (typeof path !== 'string') return undefined;
  const args =
    Object.keys(hash).length > 0
      ? [...rest, Object.fromEntries(Object.entries(hash).filter(([k]) => !forbidden(k)))]
      : rest;
  return callFaker(path, args, st.ctx.rng);
}

export const DATE_HELPERS: readonly HelperSpec[] = [
  {
    name: 'now',
    family: 'dates',
    signature: "now [format] [offset='+3 days']",
    description:
      'The current time (UTC), ISO 8601 or in a format (`yyyy-MM-dd`, `epoch`, `unix`), shifted by `offset`.',
    example: "{{now 'yyyy-MM-dd' offset='+1 days'}}",
    output: '2024-01-16',
    fn: ([format], hash, st) => {
      let d = new Date(st.ctx.now());
      if (hash.offset !== undefined) d = shiftDate(d, str(hash.offset)) ?? d;
      return formatDate(d, format ?? hash.format);
    },
  },
  {
    name: 'dateFormat',
    family: 'dates',
    signature: 'dateFormat date format',
    description: 'A date (ISO text or epoch ms) in a format.',
    example: "{{dateFormat '2024-03-05T10:20:30Z' 'dd/MM/yyyy HH:mm'}}",
    output: '05/03/2024 10:20',
    pure: true,
    fn: ([d, f], _h, st) => formatDate(toDate(d, st), f),
    aliases: ['parseDate', 'formatDate'],
  },
  {
    name: 'dateAdd',
    family: 'dates',
    signature: 'dateAdd date offset [format] · dateAdd date days=1 hours=2…',
    description: "A date shifted by an offset ('+3 days', '-2 hours', '1 months') or by hash units.",
    example: "{{dateAdd '2024-01-31T00:00:00Z' '+1 days' 'yyyy-MM-dd'}}",
    output: '2024-02-01',
    pure: true,
    fn: ([d, off, f], hash, st) => {
      let date = toDate(d, st);
      if (off !== undefined) date = shiftDate(date, str(off)) ?? new Date(Number.NaN);
      return formatDate(shiftByHash(date, hash), f ?? hash.format);
    },
    aliases: ['dateTimeShift'],
  },
  {
    name: 'truncateDate',
    family: 'dates',
    signature: 'truncateDate date unit',
    description:
      "The date cut to the start of its 'day', 'hour', 'minute' or 'month' (WireMock's first/last units read as start).",
    example: "{{truncateDate '2024-03-05T10:20:30Z' 'day'}}",
    output: '2024-03-05T00:00:00.000Z',
    pure: true,
    fn: ([d, u], _h, st) => {
      const date = toDate(d, st);
      if (Number.isNaN(date.getTime())) return undefined;
      const unit = str(u).toLowerCase();
      if (unit.includes('month')) return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)).toISOString();
      if (unit.includes('hour')) date.setUTCMinutes(0, 0, 0);
      else if (unit.includes('minute')) date.setUTCSeconds(0, 0);
      else date.setUTCHours(0, 0, 0, 0);
      return date.toISOString();
    },
  },
  {
    name: 'isValidDate',
    family: 'dates',
    signature: 'isValidDate text',
    description: 'True when the text is a date (Mockoon).',
    example: "{{isValidDate '2024-01-01'}}",
    output: 'true',
    pure: true,
    fn: ([d]) => d !== undefined && !Number.isNaN(new Date(str(d)).getTime()),
  },
  {
    name: '$isoDate',
    family: 'dates',
    signature: '$isoDate [offset]',
    description: 'The current time in ISO 8601, shifted by "+1d", "-2h", "+30m" or "+10s".',
    example: '{{$isoDate "+1d"}}',
    output: '2024-01-16T12:00:00.000Z',
    fn: ([off], _h, st) => {
      const d = new Date(st.ctx.now());
      if (off === undefined) return d.toISOString();
      return shiftDate(d, str(off))?.toISOString();
    },
  },
  {
    name: '$timestamp',
    family: 'dates',
    signature: '$timestamp',
    description: 'The current time in ms since 1970.',
    example: '{{$timestamp}}',
    output: '1705320000000',
    fn: (_a, _h, st) => Math.floor(st.ctx.now()),
  },
  rnd(
    'dates',
    'date',
    'date from to [format]',
    'A random date between two dates (Mockoon).',
    "{{date '2024-01-01' '2024-12-31' 'yyyy-MM-dd'}}",
    ([a, b, f], _h, st) => {
      const lo = toDate(a, st).getTime();
      const hi = toDate(b, st).getTime();
      return Number.isNaN(lo) || Number.isNaN(hi) ? undefined : formatDate(new Date(Math.floor(random(st, lo, hi))), f);
    },
  ),
];

export const RANDOM_HELPERS: readonly HelperSpec[] = [
  rnd(
    'random',
    'randomInt',
    'randomInt min max · randomInt lower=1 upper=9',
    'A random integer, both ends included.',
    '{{randomInt 1 6}}',
    (args, hash, st) =>
      args.length === 2
        ? randomInt(st, args[0], args[1])
        : args.length === 0
          ? randomInt(st, hash.lower ?? 0, hash.upper ?? 2147483647)
          : undefined,
    ['int', '$randomInt'],
  ),
  rnd(
    'random',
    'randomFloat',
    'randomFloat min max [decimals]',
    'A random number between min and max.',
    '{{randomFloat 1 2 2}}',
    ([a, b, dec], hash, st) => {
      const lo = toNumber(a ?? hash.lower ?? 0);
      const hi = toNumber(b ?? hash.upper ?? 1);
      if (Number.isNaN(lo) || Number.isNaN(hi)) return undefined;
      const n = random(st, lo, hi);
      const places = dec ?? hash.decimals ?? hash.fixed;
      return places === undefined ? n : Number(n.toFixed(Math.min(20, Math.max(0, Math.trunc(toNumber(places)) || 0))));
    },
    ['float', 'randomDecimal'],
  ),
  rnd(
    'random',
    'randomValue',
    "randomValue length=8 type='ALPHANUMERIC'",
    'Random text: type ALPHANUMERIC, ALPHABETIC, NUMERIC, HEXADECIMAL, ALPHANUMERIC_AND_SYMBOLS or UUID; `uppercase=true`.',
    "{{randomValue length=8 type='HEXADECIMAL'}}",
    (_a, hash, st) => randomValue(st, hash),
  ),
  rnd('random', 'uuid', 'uuid', 'A fresh RFC 4122 v4 uuid.', '{{uuid}}', (_a, _h, st) => st.ctx.uuid(), [
    '$uuid',
    'guid',
  ]),
  rnd(
    'random',
    'boolean',
    'boolean',
    'true or false at random (Mockoon).',
    '{{boolean}}',
    (_a, _h, st) => st.ctx.rng() < 0.5,
  ),
  rnd('random', 'objectId', 'objectId', 'A random 24-hex-digit id (Mockoon).', '{{objectId}}', (_a, _h, st) =>
    randomValue(st, { type: 'HEXADECIMAL', length: 24 }),
  ),
  rnd('random', 'oneOf', 'oneOf list', 'One item of a list at random.', '{{oneOf (array "a" "b")}}', ([l], _h, st) => {
    const items = toList(l);
    return items.length === 0 ? undefined : items[Math.floor(st.ctx.rng() * items.length)];
  }),
  rnd(
    'random',
    'pickRandom',
    'pickRandom a b…',
    'One of the arguments at random (or of a list) (WireMock).',
    '{{pickRandom "a" "b"}}',
    (args, _h, st) => {
      const items = args.length === 1 ? toList(args[0]) : args;
      return items.length === 0 ? undefined : items[Math.floor(st.ctx.rng() * items.length)];
    },
  ),
  rnd(
    'random',
    'someOf',
    'someOf list min max [asArray]',
    'Between min and max items of a list at random (text joined by "," unless asArray is true).',
    '{{someOf (array "a" "b" "c") 1 2}}',
    ([l, a, b, asArray], _h, st) => {
      const pool = [...toList(l)];
      const n = Math.min(pool.length, randomInt(st, a ?? 1, b ?? pool.length) ?? 0);
      const out: unknown[] = [];
      for (let i = 0; i < n; i++) out.push(pool.splice(Math.floor(st.ctx.rng() * pool.length), 1)[0]);
      return asArray === true ? out : out.map(str).join(',');
    },
  ),
  rnd(
    'random',
    'faker',
    'faker "module.method" [args…] [key=value…]',
    'A faker value (the methods listed below); JSON-literal or hash arguments.',
    "{{faker 'person.firstName'}}",
    fakerHelper,
  ),
];
