import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { rootFieldsOf } from './root-fields.ts';
import type { OperationPolicy } from './use-operation-policy.ts';

const INTROSPECTION_FIELDS: ReadonlySet<string> = new Set(['__schema', '__type', '__typename']);

/**
 * Answers kept, counted in characters of their JSON: a handful of documents (GraphiQL's, code generators') are asked for
 * again and again; 8 MB holds GraphiQL's answer (190 KB) forty times over, or ten of the largest (about 0.8 MB).
 */
export const INTROSPECTION_ANSWER_BYTES = 8 * 1024 * 1024;

interface Kept {
  result: ExecutionResult;
  /** `result.data` as JSON, written into every answer that carries it instead of serialising it again. */
  json: string;
}

type Stringified = ExecutionResult & { stringify?: (result: ExecutionResult) => string };

/** The answer with the kept data's JSON spliced in; anything the policy added beside the data is serialised as usual. */
function withKeptJson({ result, json }: Kept, answer: ExecutionResult): Stringified {
  const stringify = (sent: ExecutionResult): string => {
    if (sent.data !== result.data) return JSON.stringify(sent);
    const { data: _data, ...rest } = sent;
    const others = JSON.stringify(rest);
    return others === '{}' ? `{"data":${json}}` : `{"data":${json},${others.slice(1)}`;
  };
  return { ...answer, stringify };
}

/**
 * Introspection answered once per document and variables. It needs no key and no rate limit counts it, and it is the
 * dearest keyless answer (GraphiQL's query took 20 ms of the process per request): the schema does not change while
 * the process runs, so an answer, once computed, is the answer to every later request of the same document. Only
 * documents whose chosen operation selects nothing but `__schema`, `__type` and `__typename` are kept, only answers
 * without errors, oldest document out first past the byte bound. Yoga's parse cache hands every request of a query
 * text the same document, so the document itself is the key.
 */
export function withIntrospectionAnswers(policy: OperationPolicy, maxBytes = INTROSPECTION_ANSWER_BYTES): OperationPolicy {
  const kept = new Map<DocumentNode, Map<string, Kept>>();
  let bytes = 0;
  const keep = (document: DocumentNode, key: string, result: ExecutionResult): void => {
    const json = JSON.stringify(result.data);
    const size = json.length;
    if (size > maxBytes) return;
    while (bytes + size > maxBytes) {
      const [oldest, answers] = kept.entries().next().value!;
      for (const answer of answers.values()) bytes -= answer.json.length;
      kept.delete(oldest);
    }
    let answers = kept.get(document);
    if (!answers) kept.set(document, (answers = new Map()));
    answers.set(key, { result, json });
    bytes += size;
  };
  return async (args) => {
    const operation = getOperationAST(args.document, args.operationName);
    const variables = (args.variableValues ?? {}) as Record<string, unknown>;
    const introspectionOnly =
      operation?.operation === 'query' && rootFieldsOf(operation, args.document, variables).every(({ fieldName }) => INTROSPECTION_FIELDS.has(fieldName));
    const step = await policy(args);
    if (!introspectionOnly || (step && 'answer' in step)) return step;
    const key = JSON.stringify([args.operationName ?? null, variables]);
    const answer = kept.get(args.document)?.get(key);
    // The policy still settles each request: a call with a key is told its balance, as on any call.
    if (answer) return { answer: withKeptJson(answer, step ? await step.settle(answer.result) : answer.result) };
    return {
      async settle(result) {
        if (!result.errors?.length) keep(args.document, key, result);
        return step ? step.settle(result) : result;
      },
    };
  };
}
