/**
 * Completion of `{{…}}` template tags for the code editor: what may follow the text before the caret.
 * Pure (no CodeMirror), so it is unit-tested; the editor turns the answer into its completion list.
 * The names follow src/runtime/template.ts: request.*, vars.*, endpoint.*, project.*, collection.*,
 * the helpers and `faker "module.method"`.
 */

export interface TemplateHints {
  /** Path parameter names of the endpoint (`/users/:id` → `id`). */
  params: readonly string[];
  /** `saveAs` names of the rule's webhook actions. */
  vars: readonly string[];
  /** Collection names of the project. */
  collections: readonly string[];
  /** The server's helper table (GET /api/templates/helpers), once loaded; the built-in few until then. */
  helpers?: readonly { name: string; signature: string; description: string; block?: boolean }[];
  /** Where previews render (the project) and the request they render against by default. */
  projectId?: string;
  method?: string;
  path?: string;
}

export const NO_HINTS: TemplateHints = { params: [], vars: [], collections: [] };

/** The helper table as completion options: a name, its signature, and `name ` to type the arguments. */
function helperOptions(h: TemplateHints): TemplateOption[] {
  if (!h.helpers) return HELPERS;
  return h.helpers.map((x) => ({
    label: x.block ? `#${x.name}` : x.name,
    detail: `${x.signature} — ${x.description}`,
    apply:
      x.name === 'faker'
        ? "faker 'person.fullName'"
        : x.block || x.signature.includes(' ')
          ? `${x.block ? '#' : ''}${x.name} `
          : x.name,
  }));
}

export interface TemplateOption {
  label: string;
  detail: string;
  /** Text that replaces the typed word; defaults to the label. */
  apply?: string;
  /** Where the caret goes: this many characters before the end of `apply` (inside an added `}}`). */
  caretBack?: number;
}

export interface TemplateCompletion {
  /** Offset in the text before the caret where the replaced word starts. */
  from: number;
  options: TemplateOption[];
}

const HELPERS: TemplateOption[] = [
  { label: '$uuid', detail: 'a random v4 uuid' },
  { label: '$timestamp', detail: 'milliseconds since the epoch' },
  { label: '$isoDate', detail: 'now as an ISO date; $isoDate "+1d" shifts it' },
  { label: '$randomInt', detail: 'an integer between two bounds', apply: '$randomInt 1 6' },
  { label: 'json', detail: 'the value JSON-escaped, for inside a JSON string', apply: 'json ' },
  { label: 'default', detail: 'the value, or a fallback when empty', apply: 'default ' },
  { label: 'faker', detail: 'a realistic value from @faker-js/faker', apply: "faker 'person.fullName'" },
];

/** Faker methods offered after `faker "` (any other `module.method` works too; docs/api.md). */
export const FAKER_METHODS: readonly string[] = [
  'person.firstName',
  'person.lastName',
  'person.fullName',
  'person.jobTitle',
  'person.sex',
  'internet.email',
  'internet.username',
  'internet.url',
  'internet.ipv4',
  'internet.password',
  'phone.number',
  'location.city',
  'location.country',
  'location.streetAddress',
  'location.zipCode',
  'location.latitude',
  'location.longitude',
  'company.name',
  'commerce.productName',
  'commerce.price',
  'commerce.department',
  'finance.iban',
  'finance.amount',
  'finance.currencyCode',
  'date.past',
  'date.future',
  'date.recent',
  'lorem.word',
  'lorem.sentence',
  'lorem.paragraph',
  'string.uuid',
  'string.alpha',
  'string.alphanumeric',
  'string.numeric',
  'number.int',
  'number.float',
  'datatype.boolean',
  'color.rgb',
  'image.url',
  'helpers.arrayElement',
];

/** Where the open tag's expression starts, or -1 when the caret is not inside `{{ … }}`. */
function openTag(before: string): number {
  const open = before.lastIndexOf('{{');
  if (open < 0) return -1;
  return before.indexOf('}}', open) < 0 ? open + 2 : -1;
}

function paths(h: TemplateHints): TemplateOption[] {
  const out: TemplateOption[] = [
    { label: 'request.method', detail: 'the request method' },
    { label: 'request.path', detail: 'the request path' },
    { label: 'request.body', detail: 'the raw body; request.body.a.b reads JSON' },
    { label: 'request.query.', detail: 'a query parameter' },
    { label: 'request.headers.', detail: 'a request header (any case)' },
  ];
  for (const p of h.params) out.push({ label: `request.params.${p}`, detail: 'a path parameter' });
  if (h.params.length === 0) out.push({ label: 'request.params.', detail: 'a path parameter' });
  for (const v of h.vars) {
    out.push({ label: `vars.${v}.status`, detail: `status of the “${v}” webhook answer` });
    out.push({ label: `vars.${v}.body`, detail: `body of the “${v}” webhook answer` });
    out.push({ label: `vars.${v}.headers.`, detail: `a header of the “${v}” webhook answer` });
  }
  if (h.vars.length === 0) out.push({ label: 'vars.', detail: 'a webhook answer saved with saveAs' });
  out.push({ label: 'endpoint.', detail: 'a value in this endpoint’s storage' });
  out.push({ label: 'project.', detail: 'a value in the project’s storage' });
  for (const c of h.collections) out.push({ label: `collection.${c}.count`, detail: `items in “${c}”` });
  return out;
}

/**
 * The completion at the end of `before` (the text up to the caret), or null outside a tag. `explicit`
 * is true when the user asked (Ctrl-Space): then an empty word lists everything.
 */
export function completeTemplate(
  before: string,
  hints: TemplateHints,
  explicit = false,
  after = '',
): TemplateCompletion | null {
  const start = openTag(before);
  if (start < 0) return null;
  const expr = before.slice(start);
  const faker = /faker\s+(["'])([\w.]*)$/.exec(expr);
  if (faker) {
    const word = faker[2];
    // the closing quote is typed, or was put there by the editor's bracket closing
    const close = after.startsWith(faker[1]) ? '' : faker[1];
    const options = FAKER_METHODS.filter((m) => m.startsWith(word)).map((m) => ({
      label: m,
      detail: 'faker',
      apply: `${m}${close}${after.replace(/^["']/, '').startsWith('}}') ? '' : '}}'}`,
    }));
    return options.length ? { from: before.length - word.length, options } : null;
  }
  if (/["'][^"']*$/.test(expr.replace(/"[^"]*"|'[^']*'/g, ''))) return null; // inside another string literal
  const word = /[#\w.$-]*$/.exec(expr)?.[0] ?? '';
  if (word === '' && !explicit && !/^\s*$/.test(expr) && !/[\s(]$/.test(expr)) return null;
  const first = expr.slice(0, expr.length - word.length).trim() === '';
  const pool = first ? [...paths(hints), ...helperOptions(hints)] : [...paths(hints), ...helperOptions(hints)];
  // a tag completed where nothing closes it yet gets its `}}`
  const closing = after.startsWith('}}') ? '' : '}}';
  const options = pool
    .filter((o) => o.label.startsWith(word) && o.label !== word)
    .map((o) => {
      const apply = o.apply ?? o.label;
      if (!first || apply.endsWith('.')) return o;
      // a helper that takes arguments: the caret stays before the `}}` it adds
      return apply.endsWith(' ')
        ? { ...o, apply: apply + closing, caretBack: closing.length }
        : { ...o, apply: apply + closing };
    });
  return options.length ? { from: before.length - word.length, options } : null;
}

/** Path parameter names of an endpoint path: `/users/:id/orders/:orderId` → `['id', 'orderId']`. */
export function pathParams(path: string): string[] {
  return path
    .split('/')
    .filter((seg) => /^:[A-Za-z0-9_]+$/.test(seg))
    .map((seg) => seg.slice(1));
}
