export const OPERATIONS: number;
export function bigDescription(): string;
