import type { TestStack } from '@quire/testkit';

export async function benchGit(stack: Pick<TestStack, 'baseUrl' | 'cli'>): Promise<void> {
  void stack;
  throw new Error('bench section not written yet');
}
