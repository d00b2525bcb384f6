/**
 * Runs `probe` until it resolves (its expectations hold), and returns its value. On the deadline, fails
 * with the probe's last error: what was expected and what was there.
 */
export async function eventually<T>(probe: () => Promise<T>, { timeoutMs = 15_000, intervalMs = 50 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
