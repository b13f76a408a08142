/**
 * `{{faker "person.firstName"}}` (docs/stateful-mocks.md): calls a method of @faker-js/faker (English locale),
 * loaded lazily — a server whose projects never use faker never loads it — before the first project
 * that uses it is served (project-cache.ts waits for it).
 *
 * Faker draws its random numbers from the request's random source (a randomizer that reads it), so
 * with `X-Mockyard-Seed` the same template gives the same values, and without it values vary — with
 * no seeding per call (a faker seed costs about 25 µs). Only the methods of FAKER_METHODS are
 * callable; arguments are JSON literals, and those that are sizes (lengths, counts, digits) are at
 * most MAX_SIZE — a template must not make the server build a 100-million-character string before
 * the render cap sees it. Values (`number.int`'s `min`/`max`, dates) are not limited.
 */
import type { Faker, Randomizer } from '@faker-js/faker';
import { ALLOWED, argsOk } from './faker-methods.js';

export { FAKER_METHODS, MAX_REPEAT, MAX_SIZE } from './faker-methods.js';

let faker: Faker | null = null;
let loading: Promise<void> | null = null;
/** where faker's numbers come from during a call (set by callFaker) */
let source: () => number = Math.random;
const randomizer: Randomizer = { next: () => source(), seed: () => {} };

/** Loads faker once; later calls answer the same promise. */
export function loadFaker(): Promise<void> {
  loading ??= import('@faker-js/faker/locale/en').then((m) => {
    // the English faker's own class and definitions, with our randomizer (the package's main entry
    // would load every locale)
    const FakerClass = m.faker.constructor as new (o: { locale: unknown; randomizer: Randomizer }) => Faker;
    faker = new FakerClass({ locale: m.faker.rawDefinitions, randomizer });
  });
  return loading;
}

export const fakerLoaded = (): boolean => faker !== null;

/** A small seeded random source (mulberry32): the same seed, the same numbers. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The method at `path` of the faker instance (`person.firstName`), or null when it is not allowed. */
function method(path: string): ((...args: unknown[]) => unknown) | null {
  if (faker === null || !ALLOWED.has(path)) return null;
  const dot = path.indexOf('.');
  const owner = (faker as unknown as Record<string, Record<string, unknown>>)[path.slice(0, dot)];
  const fn = owner?.[path.slice(dot + 1)];
  return typeof fn === 'function' ? (fn as (...args: unknown[]) => unknown).bind(owner) : null;
}

/** Calls the method with the arguments, its random numbers read from `rng`; its value as text, or undefined. */
export function callFaker(path: string, args: readonly unknown[], rng: () => number): string | undefined {
  const fn = method(path);
  if (fn === null || !argsOk(path, args)) return undefined;
  if (faker === null) return undefined;
  source = rng;
  try {
    const v = fn(...args);
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    if (v instanceof Date) return v.toISOString();
    if (typeof v === 'object') return JSON.stringify(v);
    return String(v);
  } catch {
    return undefined;
  } finally {
    source = Math.random;
  }
}

const POOL = 64;
const pools = new Map<string, readonly string[]>();

/**
 * 64 values of a method without arguments, made once per process from a fixed seed (the same on
 * every process): generated data (GraphQL answers) picks among them with the request's random source
 * — realistic values at the cost of an index, not of a faker call. Empty when faker is not loaded.
 */
export function fakerPool(path: string): readonly string[] {
  const known = pools.get(path);
  if (known) return known;
  if (faker === null) return [];
  const rng = seededRandom(textSeed(path));
  const values: string[] = [];
  for (let i = 0; i < POOL; i++) {
    const v = callFaker(path, [], rng);
    if (v !== undefined) values.push(v);
  }
  pools.set(path, values);
  return values;
}

/** Faker methods for a string property, by format, then by the property's name (lower case, no `_`/`-`). */
const BY_FORMAT: Record<string, string> = {
  email: 'internet.email',
  'idn-email': 'internet.email',
  uuid: 'string.uuid',
  uri: 'internet.url',
  url: 'internet.url',
  iri: 'internet.url',
  hostname: 'internet.domainName',
  ipv4: 'internet.ipv4',
  ipv6: 'internet.ipv6',
  password: 'internet.password',
};
const BY_NAME: [RegExp, string][] = [
  [/^(e?mail|emailaddress)$/, 'internet.email'],
  [/^(firstname|givenname)$/, 'person.firstName'],
  [/^(lastname|surname|familyname)$/, 'person.lastName'],
  [/^(name|fullname|displayname|author|owner)$/, 'person.fullName'],
  [/^(user(name)?|login|handle|nickname)$/, 'internet.username'],
  [/^(phone|phonenumber|mobile|telephone)$/, 'phone.number'],
  [/^(street|streetaddress|address(line)?1?)$/, 'location.streetAddress'],
  [/^(city|town)$/, 'location.city'],
  [/^(state|region|province)$/, 'location.state'],
  [/^(country)$/, 'location.country'],
  [/^(countrycode)$/, 'location.countryCode'],
  [/^(zip|zipcode|postcode|postalcode)$/, 'location.zipCode'],
  [/^(company|companyname|organi[sz]ation)$/, 'company.name'],
  [/^(jobtitle|title)$/, 'person.jobTitle'],
  [/^(description|summary|bio|about|comment|text|body|content|message)$/, 'lorem.sentence'],
  [/^(url|website|homepage|link|href)$/, 'internet.url'],
  [/^(avatar|avatarurl|image|imageurl|photo|picture|thumbnail)$/, 'image.url'],
  [/^(color|colour)$/, 'color.human'],
  [/^(currency|currencycode)$/, 'finance.currencyCode'],
  [/^(iban)$/, 'finance.iban'],
  [/^(slug)$/, 'lorem.slug'],
  [/^(word|tag|label|category)$/, 'lorem.word'],
  [/^(uuid|guid)$/, 'string.uuid'],
];

/** A deterministic seed from text (FNV-1a: the same property always gets the same value). */
function textSeed(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * A realistic value for a string property (OpenAPI import, docs/stateful-mocks.md): an email for `email`, a
 * name for `name`, … — the same for the same property every time; undefined when faker is not
 * loaded or nothing fits.
 */
export function fakeString(property: string, format: string | undefined): string | undefined {
  if (faker === null) return undefined;
  const key = property.toLowerCase().replace(/[_\-\s]/g, '');
  const path = format ? BY_FORMAT[format] : BY_NAME.find(([re]) => re.test(key))?.[1];
  if (!path) return undefined;
  return callFaker(path, [], seededRandom(textSeed(`${key}|${format ?? ''}`)));
}
