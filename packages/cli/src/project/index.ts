export { loadProject, TEXT_SETTINGS } from './load.js';
export {
  formatProblem,
  formatWarning,
  ProjectError,
  type ProjectProblem,
  sortProblems,
  UnsetVariablesError,
} from './problems.js';
export type * from './types.js';
