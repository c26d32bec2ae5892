/** The queue kind every worker serves: one episode per job (families add their own, e.g. `trainings`). */
export const EPISODES = "episodes";
