/** The help texts of `mockyard` and of each command. */
export const DEFAULT_URL = 'http://127.0.0.1:3000';

import { PLANS } from '../domain/constants.js';

export { PLANS };
export const FORMATS = ['openapi', 'wiremock', 'mockoon', 'postman', 'har'] as const;

export const HELP: Record<string, string> = {
  top: `Usage: mockyard <command> [options]

Commands:
  serve                          run the service (management API, dashboard and mock traffic)
  serve --file <path>            serve the mocks of a file or folder at the root path, no account
  import <file|folder|zip>       import OpenAPI, Swagger, WireMock, Mockoon, Postman, HAR or an export
  export <project>               print a project as a JSON export document
  mcp                            serve the MCP tools over stdio to a running service (agents)
  lint --contract <openapi> <mocks>  check mock files against an OpenAPI contract (exit 1 on problems)
  user set-plan <email> <plan>   set a user's plan (free, pro, business) in the database

Options:
  -h, --help      help for mockyard or for a command (mockyard <command> --help)
  -v, --version   print the version

Commands that talk to a running service take --url (default ${DEFAULT_URL}, or MOCKYARD_URL)
and --token (or MOCKYARD_TOKEN): a session token from POST /api/auth/login.`,
  lint: `Usage: mockyard lint --contract <openapi file> <mocks file or folder> [--json]

Checks every answer of the mocks (any format serve --file reads: a Mockyard export, WireMock,
Mockoon, Postman, HAR, OpenAPI) against an OpenAPI 3.0 / 3.1 or Swagger 2.0 contract, offline:
each endpoint's default answer and each rule step, rendered with a sample request; and lists the
operations no endpoint mocks. Exit codes: 0 no problem, 1 a problem (or a file that cannot be
read), 2 wrong usage. --json prints the report as GET /api/projects/:id/contract/lint answers it.`,
  serve: `Usage: mockyard serve [--port N] [--host H] [--database URL]
       mockyard serve --file <file-or-folder> [--watch] [--port N] [--host H]

Runs the service in this process (builds dist/ first when it is missing). Options override the
environment (PORT, HOST, DATABASE_URL); every other variable of the service applies as usual.

With --file, serves the mocks of a file or a folder of files — a Mockyard export, OpenAPI 3.x,
Swagger 2.0, WireMock mappings, a Mockoon environment, a Postman collection or a HAR capture, JSON or
YAML — with no account, on an in-memory database, at the root path (GET /api/users, no prefix). The
management API answers under /api to requests with MOCKYARD_ADMIN_TOKEN as bearer token. A file that
cannot be read or parsed exits with code 1 and names it.

Options:
  --port N          listen port (default 3000)
  --host H          listen address (default 127.0.0.1)
  --database URL    sqlite:<file>, sqlite::memory: or postgres://… (default sqlite:./data/mockyard.db)
  --file PATH       serve the mocks of this file or folder (see above)
  --watch           with --file: reload on change, keeping the sequence positions of unchanged rules
  -h, --help        this help`,
  import: `Usage: mockyard import <file|folder|zip> --project <name> [--format F] [--url URL] [--token T]

Imports a document into the project with that name (or id), creating the project when there is none:
OpenAPI 3.0/3.1, Swagger 2.0, WireMock mappings, a Mockoon environment, a Postman collection v2.x, a
HAR capture or a Mockyard export (.json, .yaml or .yml). The format is detected unless --format says it.
A folder or a .zip is sent as a zip: every file in it is imported, with WireMock's __files bodies,
Mockoon file bodies and the parts of a split OpenAPI description read from it.
Prints the report: created, replaced, skipped and the warnings for what was not translated.

Options:
  --project NAME          target project: a name or an id (required)
  --format F              openapi, wiremock, mockoon, postman or har (default: detected)
  --on-conflict MODE      fail (default: nothing is created), skip or replace existing endpoints
  --json                  print the service's answer as JSON
  --url URL               service address (default ${DEFAULT_URL}, or MOCKYARD_URL)
  --token T               session token (or MOCKYARD_TOKEN)
  -h, --help              this help`,
  export: `Usage: mockyard export <project-name-or-id> [--storage] [--url URL] [--token T]

Prints the project as one JSON document (the format POST /api/projects/import takes) on stdout.

Options:
  --storage         include the endpoints' stored variables
  --url URL         service address (default ${DEFAULT_URL}, or MOCKYARD_URL)
  --token T         session token (or MOCKYARD_TOKEN)
  -h, --help        this help`,
  mcp: `Usage: mockyard mcp [--url URL] [--token T]

Serves the Model Context Protocol tools of docs/agents.md over stdio, for an agent that starts
mockyard as a subprocess. Every tool calls the REST API of the running service with the token (a
session token or an API key; a read key is offered the read tools only).

Options:
  --url URL         service address (default ${DEFAULT_URL}, or MOCKYARD_URL)
  --token T         session token or API key (or MOCKYARD_TOKEN)
  -h, --help        this help`,
  user: `Usage: mockyard user set-plan <email> <plan> [--database URL]

Sets a user's plan (${PLANS.join(', ')}) directly in the database, like an admin console. The database is
--database, else DATABASE_URL, else sqlite:./data/mockyard.db.

Options:
  --database URL    the service's database
  -h, --help        this help`,
};
