// Stands in for @intlify/message-compiler in the console's build (web/vite.config.ts): the console
// compiles its messages itself (web/src/message-compiler.ts), so vue-i18n's compiler (~35 KB of
// the first screen) is never called. What @intlify/core-base imports from it is kept, small.
export const CompileErrorCodes = {
  EXPECTED_TOKEN: 1,
  INVALID_TOKEN_IN_PLACEHOLDER: 2,
  UNTERMINATED_SINGLE_QUOTE_IN_PLACEHOLDER: 3,
  UNKNOWN_ESCAPE_SEQUENCE: 4,
  INVALID_UNICODE_ESCAPE_SEQUENCE: 5,
  UNBALANCED_CLOSING_BRACE: 6,
  UNTERMINATED_CLOSING_BRACE: 7,
  EMPTY_PLACEHOLDER: 8,
  NOT_ALLOW_NEST_PLACEHOLDER: 9,
  INVALID_LINKED_FORMAT: 10,
  MUST_HAVE_MESSAGES_IN_PLURAL: 11,
  UNEXPECTED_EMPTY_LINKED_MODIFIER: 12,
  UNEXPECTED_EMPTY_LINKED_KEY: 13,
  UNEXPECTED_LEXICAL_ANALYSIS: 14,
  UNHANDLED_CODEGEN_NODE_TYPE: 15,
  UNHANDLED_MINIFIER_NODE_TYPE: 16,
};
export const COMPILE_ERROR_CODES_EXTEND_POINT = 17;

export function createCompileError(code, loc, options = {}) {
  const error = new SyntaxError(String(code));
  error.code = code;
  if (loc) error.location = loc;
  error.domain = options.domain;
  return error;
}

export function defaultOnError(error) {
  throw error;
}

const RE_HTML_TAG = /<\/?[\w\s="/.':;#-/]+>/;
export const detectHtmlTag = (source) => RE_HTML_TAG.test(source);

export function baseCompile() {
  throw new Error('vue-i18n compiler left out: web/src/message-compiler.ts compiles the console messages');
}
