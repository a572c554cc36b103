// The seven stage ids, in order (the same names as the core's trace stages and web/mha.js STAGES).
export const STAGE_IDS = ['tokenize', 'embed', 'project', 'split', 'attend', 'concat', 'output'];
