import { writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { schema } from './schema.ts';

/** `npm run schema:print`: writes the committed `schema/schema.graphql` that the snapshot test compares. */
writeFileSync(new URL('./schema.graphql', import.meta.url), printSchema(schema));
