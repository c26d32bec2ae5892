/** The queue kind reward search adds to `hexa worker`: one training per job, shared by every worker that serves it. */
export const TRAININGS = "trainings";
