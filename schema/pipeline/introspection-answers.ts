import { getOperationAST, type DocumentNode, type ExecutionResult, type OperationDefinitionNode } from 'graphql';
import { rootFieldsOf } from './root-fields.ts';
import type { OperationPolicy } from './use-operation-policy.ts';

const INTROSPECTION_FIELDS: ReadonlySet<string> = new Set(['__schema', '__type', '__typename']);

/**
 * Answers kept, counted in characters of their JSON and their query text: a handful of documents (GraphiQL's, code generators') are asked for
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

/** Operations kept at most, whatever their size: each holds its parsed document. */
export const INTROSPECTION_ANSWERS_MAX = 64;

/**
 * Introspection answered once per operation. It needs no key and no rate limit counts it, and it is the dearest
 * keyless answer (GraphiQL's query took 10–20 ms of the process per request): the schema does not change while the
 * process runs, so an answer, once computed, is the answer to every later request of the same operation. Only
 * operations that declare no variables (GraphiQL's and code generators' do not) and select nothing but `__schema`,
 * `__type` and `__typename` are kept, so the answer depends on the operation alone: nothing a request sends beside
 * it (variables it does not declare) makes another entry. Only answers without errors; at most
 * INTROSPECTION_ANSWERS_MAX operations and `maxBytes` characters of answers and query text, oldest out first. Yoga's
 * parse cache hands every request of a query text the same document, so its operation node is the key.
 */
export function withIntrospectionAnswers(policy: OperationPolicy, maxBytes = INTROSPECTION_ANSWER_BYTES): OperationPolicy {
  const kept = new Map<OperationDefinitionNode, Kept & { size: number }>();
  let bytes = 0;
  const keep = (operation: OperationDefinitionNode, document: DocumentNode, result: ExecutionResult): void => {
    const json = JSON.stringify(result.data);
    const size = json.length + (document.loc?.source.body.length ?? 0);
    if (size > maxBytes || kept.has(operation)) return;
    while (kept.size >= INTROSPECTION_ANSWERS_MAX || bytes + size > maxBytes) {
      const [oldest, answer] = kept.entries().next().value!;
      bytes -= answer.size;
      kept.delete(oldest);
    }
    kept.set(operation, { result, json, size });
    bytes += size;
  };
  return async (args) => {
    const operation = getOperationAST(args.document, args.operationName);
    const keepable =
      operation?.operation === 'query' &&
      !operation.variableDefinitions?.length &&
      rootFieldsOf(operation, args.document).every(({ fieldName }) => INTROSPECTION_FIELDS.has(fieldName));
    const step = await policy(args);
    if (!keepable || (step && 'answer' in step)) return step;
    const answer = kept.get(operation);
    // The policy still settles each request: a call with a key is told its balance, as on any call.
    if (answer) return { answer: withKeptJson(answer, step ? await step.settle(answer.result) : answer.result) };
    return {
      async settle(result) {
        if (!result.errors?.length) keep(operation, args.document, result);
        return step ? step.settle(result) : result;
      },
    };
  };
}
