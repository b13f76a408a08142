/** The one spelling of a request target (src/request-target.ts). */
import { describe, expect, it } from 'vitest';
import { hostLines, isPlainTarget, normaliseTarget } from './request-target.js';

const url = (raw: string) => normaliseTarget(raw)?.url;

describe('normaliseTarget', () => {
  it('reduces the absolute form to its path, its host apart', () => {
    expect(normaliseTarget('http://Mock.Example:3000/api/x?a=1')).toEqual({
      url: '/api/x?a=1',
      host: 'mock.example:3000',
    });
    expect(normaliseTarget('https://user:pw@h/p')).toEqual({ url: '/p', host: 'h' });
    expect(normaliseTarget('http://h')).toEqual({ url: '/', host: 'h' });
    expect(normaliseTarget('http://h?x=1')).toEqual({ url: '/?x=1', host: 'h' });
    expect(normaliseTarget('*')).toEqual({ url: '*', host: null });
    expect(normaliseTarget('api/x')).toBeNull();
  });

  it('decodes escaped unreserved characters only, and keeps the query as it came', () => {
    expect(url('/%61pi/%41dmin/%7e%2d%2E%5F')).toBe('/api/Admin/~-._');
    expect(url('/a%2Fb/%20c%2f')).toBe('/a%2Fb/%20c%2F');
    expect(url('/a?q=%61&r=../x//y')).toBe('/a?q=%61&r=../x//y');
    expect(url('/%2561')).toBe('/%2561');
  });

  it('removes dot segments and empty segments, keeping a trailing slash', () => {
    expect(url('/api/./projects')).toBe('/api/projects');
    expect(url('/api/x/../projects/')).toBe('/api/projects/');
    expect(url('//api//projects')).toBe('/api/projects');
    expect(url('/../../api')).toBe('/api');
    expect(url('/api/%2e%2e/x')).toBe('/x');
    expect(url('/a/..')).toBe('/');
  });

  it('keeps a mock path inside its project', () => {
    expect(url('/m/p1/../../api/admin/users/1')).toBe('/m/p1/api/admin/users/1');
    expect(url('/m/p1/a/./b/../c')).toBe('/m/p1/a/c');
    expect(url('//m//p1//x')).toBe('/m/p1/x');
    expect(url('/m/p1')).toBe('/m/p1');
    expect(url('/m/../api/projects')).toBe('/api/projects');
  });

  it('the plain test lets through only what is already in its one spelling', () => {
    for (const plain of ['/', '/m/p1/users/42?x=1', '/api/projects']) expect(isPlainTarget(plain)).toBe(true);
    for (const odd of ['http://h/x', '/a%61', '/a/./b', '//a', '/a/..', '*']) expect(isPlainTarget(odd)).toBe(false);
  });

  it('counts Host lines in any case', () => {
    expect(hostLines(['Host', 'a', 'x-b', '1', 'HOST', 'b'])).toBe(2);
    expect(hostLines(['host', 'a'])).toBe(1);
  });
});
