/**
 * Which faker methods a template may call, and with which arguments (docs/templates.md, "Fake
 * data"): the allowlist, and the sizes (lengths, counts, digits) it caps so that no template makes
 * the server build a huge value before the render cap sees it.
 */

/**
 * The generator methods a template may call (docs/templates.md lists the same table; a test keeps
 * them equal). Left out: methods that compile caller-given patterns or templates
 * (`helpers.mustache`, `helpers.fake`), that take functions (`helpers.multiple`,
 * `helpers.maybe`), and faker's own state (`seed`, `definitions`).
 */
export const FAKER_METHODS: Readonly<Record<string, readonly string[]>> = {
  airline: ['aircraftType', 'airline', 'airplane', 'airport', 'flightNumber', 'recordLocator', 'seat'],
  animal: [
    'bear',
    'bird',
    'cat',
    'cetacean',
    'cow',
    'crocodilia',
    'dog',
    'fish',
    'horse',
    'insect',
    'lion',
    'petName',
    'rabbit',
    'rodent',
    'snake',
    'type',
  ],
  book: ['author', 'format', 'genre', 'publisher', 'series', 'title'],
  color: [
    'cmyk',
    'colorByCSSColorSpace',
    'cssSupportedFunction',
    'cssSupportedSpace',
    'hsl',
    'human',
    'hwb',
    'lab',
    'lch',
    'rgb',
    'space',
  ],
  commerce: [
    'department',
    'isbn',
    'price',
    'product',
    'productAdjective',
    'productDescription',
    'productMaterial',
    'productName',
    'upc',
  ],
  company: [
    'buzzAdjective',
    'buzzNoun',
    'buzzPhrase',
    'buzzVerb',
    'catchPhrase',
    'catchPhraseAdjective',
    'catchPhraseDescriptor',
    'catchPhraseNoun',
    'name',
  ],
  database: ['collation', 'column', 'engine', 'mongodbObjectId', 'type'],
  datatype: ['boolean'],
  date: [
    'anytime',
    'between',
    'betweens',
    'birthdate',
    'future',
    'month',
    'past',
    'recent',
    'soon',
    'timeZone',
    'weekday',
  ],
  finance: [
    'accountName',
    'accountNumber',
    'amount',
    'bic',
    'bitcoinAddress',
    'creditCardCVV',
    'creditCardIssuer',
    'creditCardNumber',
    'currency',
    'currencyCode',
    'currencyName',
    'currencyNumericCode',
    'currencySymbol',
    'ethereumAddress',
    'iban',
    'litecoinAddress',
    'pin',
    'routingNumber',
    'transactionDescription',
    'transactionType',
  ],
  food: ['adjective', 'description', 'dish', 'ethnicCategory', 'fruit', 'ingredient', 'meat', 'spice', 'vegetable'],
  git: ['branch', 'commitDate', 'commitEntry', 'commitMessage', 'commitSha'],
  hacker: ['abbreviation', 'adjective', 'ingverb', 'noun', 'phrase', 'verb'],
  helpers: [
    'arrayElement',
    'arrayElements',
    'fromRegExp',
    'objectEntry',
    'objectKey',
    'objectValue',
    'rangeToNumber',
    'replaceCreditCardSymbols',
    'replaceSymbols',
    'shuffle',
    'slugify',
    'uniqueArray',
    'weightedArrayElement',
  ],
  image: ['avatar', 'avatarGitHub', 'dataUri', 'personPortrait', 'url', 'urlLoremFlickr', 'urlPicsumPhotos'],
  internet: [
    'displayName',
    'domainName',
    'domainSuffix',
    'domainWord',
    'email',
    'emoji',
    'exampleEmail',
    'httpMethod',
    'httpStatusCode',
    'ip',
    'ipv4',
    'ipv6',
    'jwt',
    'jwtAlgorithm',
    'mac',
    'password',
    'port',
    'protocol',
    'url',
    'userAgent',
    'username',
  ],
  location: [
    'buildingNumber',
    'cardinalDirection',
    'city',
    'continent',
    'country',
    'countryCode',
    'county',
    'direction',
    'language',
    'latitude',
    'longitude',
    'nearbyGPSCoordinate',
    'ordinalDirection',
    'postalAddress',
    'secondaryAddress',
    'state',
    'street',
    'streetAddress',
    'timeZone',
    'zipCode',
  ],
  lorem: ['lines', 'paragraph', 'paragraphs', 'sentence', 'sentences', 'slug', 'text', 'word', 'words'],
  music: ['album', 'artist', 'genre', 'songName'],
  number: ['bigInt', 'binary', 'float', 'hex', 'int', 'octal', 'romanNumeral'],
  person: [
    'bio',
    'firstName',
    'fullName',
    'gender',
    'jobArea',
    'jobDescriptor',
    'jobTitle',
    'jobType',
    'lastName',
    'middleName',
    'prefix',
    'sex',
    'sexType',
    'suffix',
    'zodiacSign',
  ],
  phone: ['imei', 'number'],
  science: ['chemicalElement', 'unit'],
  string: [
    'alpha',
    'alphanumeric',
    'binary',
    'fromCharacters',
    'hexadecimal',
    'nanoid',
    'numeric',
    'octal',
    'sample',
    'symbol',
    'ulid',
    'uuid',
  ],
  system: [
    'commonFileExt',
    'commonFileName',
    'commonFileType',
    'cron',
    'directoryPath',
    'fileExt',
    'fileName',
    'filePath',
    'fileType',
    'mimeType',
    'networkInterface',
    'semver',
  ],
  vehicle: ['bicycle', 'color', 'fuel', 'manufacturer', 'model', 'type', 'vehicle', 'vin', 'vrm'],
  word: ['adjective', 'adverb', 'conjunction', 'interjection', 'noun', 'preposition', 'sample', 'verb', 'words'],
};

export const ALLOWED: ReadonlySet<string> = new Set(
  Object.entries(FAKER_METHODS).flatMap(([m, names]) => names.map((n) => `${m}.${n}`)),
);

/** The largest size (length, count, digits) an argument may ask for; past it the tag renders ''. */
export const MAX_SIZE = 10_000;
/** The largest counted repetition a regex-shaped generator (`helpers.fromRegExp`) may hold. */
export const MAX_REPEAT = 1000;

/** Methods whose first positional argument is a size: a number, or `{min, max}` of sizes. */
const SIZE_FIRST = new Set([
  'string.alpha',
  'string.alphanumeric',
  'string.numeric',
  'string.nanoid',
  'string.sample',
  'string.symbol',
  'lorem.word',
  'lorem.words',
  'lorem.sentence',
  'lorem.sentences',
  'lorem.paragraph',
  'lorem.paragraphs',
  'lorem.lines',
  'lorem.slug',
  'word.adjective',
  'word.adverb',
  'word.conjunction',
  'word.interjection',
  'word.noun',
  'word.preposition',
  'word.sample',
  'word.verb',
  'word.words',
  'finance.accountNumber',
  'finance.pin',
]);
/** Methods whose second positional argument is a size. */
const SIZE_SECOND = new Set(['helpers.arrayElements', 'helpers.uniqueArray', 'string.fromCharacters']);
/** Option names that are sizes in every method (`length` and `count` may be `{min, max}` of sizes). */
const SIZE_KEYS = new Set([
  'length',
  'count',
  'wordCount',
  'sentenceCount',
  'paragraphCount',
  'lineCount',
  'extensionCount',
  'dec',
  'fractionDigits',
  'width',
  'height',
]);

/** Structure of JSON arguments (not their values): bounded depth, strings and arrays. */
function shapeOk(v: unknown, depth = 0): boolean {
  if (depth > 4) return false;
  if (typeof v === 'number') return Number.isFinite(v);
  if (v === null || typeof v === 'boolean') return true;
  if (typeof v === 'string') return v.length <= 200;
  if (Array.isArray(v)) return v.length <= 50 && v.every((x) => shapeOk(x, depth + 1));
  if (typeof v === 'object') return Object.values(v as object).every((x) => shapeOk(x, depth + 1));
  return false;
}

/** A size: a number up to MAX_SIZE, or `{min, max}` of such numbers. */
function sizeOk(v: unknown): boolean {
  if (typeof v === 'number') return v <= MAX_SIZE;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    return [o.min, o.max].every((x) => x === undefined || (typeof x === 'number' && x <= MAX_SIZE));
  }
  return true;
}

/** Every size option of an options object, at any depth, within MAX_SIZE. */
function optionsOk(v: unknown, depth = 0): boolean {
  if (v === null || typeof v !== 'object' || depth > 4) return true;
  if (Array.isArray(v)) return true;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (SIZE_KEYS.has(k) && !sizeOk(x)) return false;
    if (!optionsOk(x, depth + 1)) return false;
  }
  return true;
}

/** A pattern for `helpers.fromRegExp`: counted repetitions of at most MAX_REPEAT. */
function repeatsOk(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  for (const m of v.matchAll(/\{\s*(\d*)\s*(?:,\s*(\d*)\s*)?\}/g)) {
    if (Number(m[1] || 0) > MAX_REPEAT || Number(m[2] || 0) > MAX_REPEAT) return false;
  }
  return true;
}

/** Whether `args` are fit for `path` (an allowed method): shape, sizes, patterns. */
export function argsOk(path: string, args: readonly unknown[]): boolean {
  if (!args.every((a) => shapeOk(a))) return false;
  if (SIZE_FIRST.has(path) && args.length > 0 && !sizeOk(args[0])) return false;
  if (SIZE_SECOND.has(path) && args.length > 1 && !sizeOk(args[1])) return false;
  if (path === 'helpers.fromRegExp' && !repeatsOk(args[0])) return false;
  return args.every((a) => optionsOk(a));
}
