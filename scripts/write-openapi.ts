import fs from 'node:fs';
import path from 'node:path';
import { formatOpenApiDocument, generateOpenApiDocument, OPENAPI_FILE } from './openapi-document.js';

// `npm run openapi`: regenerates the committed openapi/openapi.json from the route schemas.
const document = await generateOpenApiDocument();
fs.mkdirSync(path.dirname(OPENAPI_FILE), { recursive: true });
fs.writeFileSync(OPENAPI_FILE, formatOpenApiDocument(document));
console.log(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}`);
