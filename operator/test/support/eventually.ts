// The shared polling helper; charts/test imports it from here.
export { eventually } from '../../../test/support/wait.ts';
