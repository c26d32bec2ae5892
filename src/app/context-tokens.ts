/** Size of the long prompt of the endpoint check's context test, in estimated tokens: the actor's prompt late in an episode. */
export const DEFAULT_CONTEXT_TOKENS = 16_384;
