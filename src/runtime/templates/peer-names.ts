/**
 * Mockoon's and WireMock's template helpers, name by name, with what Mockyard renders for each
 * (docs/templates.md "Mockoon" and "WireMock"; the importers translate by the same tables). An
 * equivalent is a helper of Mockyard's table or a data path; null is not supported, with the reason.
 */

export interface PeerName {
  readonly name: string;
  /** a Mockyard helper name, or a data path such as `request.url`; null when there is none */
  readonly mockyard: string | null;
  readonly note?: string;
}

const same = (names: string): PeerName[] =>
  names
    .split(/\s+/)
    .filter(Boolean)
    .map((name) => ({ name, mockyard: name }));

/** Mockoon's helpers (its docs: Handlebars built-ins, Mockoon helpers, request, variables, faker). */
export const MOCKOON_NAMES: readonly PeerName[] = [
  ...same(`if unless each with lookup log repeat switch case default array oneOf someOf join slice len filter find sort
    sortBy reverse indexOf includes some concat split substr lowercase uppercase capitalize padStart padEnd stringify
    jsonParse objectMerge object base64 base64Decode newline int float boolean objectId date dateFormat dateTimeShift
    now time isValidDate add subtract multiply divide modulo ceil floor round toFixed gt gte lt lte eq and or not
    regexMatch first last body bodyRaw queryParam queryParamRaw urlParam cookie header hostname method setVar getVar
    setGlobalVar getGlobalVar faker jwtPayload jwtHeader`),
  { name: 'data', mockyard: null, note: 'data buckets: use a collection and `{{#each collection.NAME.items}}`' },
  { name: 'dataRaw', mockyard: null, note: 'data buckets: use a collection and `collection.NAME.items`' },
  { name: 'setData', mockyard: null, note: 'data buckets: write to a collection through a bound endpoint' },
  { name: 'ip', mockyard: null, note: 'the client address is not given to templates' },
  { name: 'baseUrl', mockyard: null, note: 'use a config variable: `{{config.baseUrl}}`' },
  { name: 'getEnvVar', mockyard: null, note: 'the server environment is never readable from a mock' },
];

/** WireMock's helpers (its response-templating docs, Handlebars-Java helpers included). */
export const WIREMOCK_NAMES: readonly PeerName[] = [
  ...same(`if unless each with lookup eq neq gt gte lt lte and or not abbreviate capitalize capitalizeFirst center cut
    dateFormat defaultIfEmpty join ljust rjust lower upper slugify stringFormat stripTags substring wordWrap yesno
    numberFormat replace assign isEven isOdd jsonPath randomValue randomInt randomDecimal hostname now parseDate
    truncateDate trim base64 urlEncode regexExtract size pickRandom math range array arrayAdd arrayRemove val contains
    matches toJson formatJson parseJson jsonMerge jsonRemove jsonArrayAdd`),
  {
    name: 'date',
    mockyard: 'dateFormat',
    note: "imports turn `{{date d format='…'}}` into dateFormat (Mockoon's date is random)",
  },
  { name: 'request.url', mockyard: 'request.url' },
  { name: 'request.path', mockyard: 'request.path' },
  { name: 'request.query', mockyard: 'request.query' },
  { name: 'request.headers', mockyard: 'request.headers' },
  { name: 'request.cookies', mockyard: 'request.cookies' },
  { name: 'request.body', mockyard: 'request.body' },
  { name: 'request.method', mockyard: 'request.method' },
  {
    name: 'request.requestLine',
    mockyard: 'request.requestLine',
    note: '`.port`, `.host`, `.scheme`, `.method`, `.path`, `.query`…',
  },
  { name: 'xPath', mockyard: null, note: 'XML bodies are not parsed' },
  { name: 'soapXPath', mockyard: null, note: 'XML bodies are not parsed' },
  { name: 'formatXml', mockyard: null, note: 'XML bodies are not parsed' },
  { name: 'formData', mockyard: null, note: 'form bodies: use `request.body` text or a body condition' },
  { name: 'stripes', mockyard: null, note: 'use `{{#if (isEven @index)}}`' },
  { name: 'systemValue', mockyard: null, note: 'the server environment is never readable from a mock' },
];
