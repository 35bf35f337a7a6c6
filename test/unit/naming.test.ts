import { describe, expect, it } from 'vitest';
import { names, singularWord, typeNameOf, words } from '../../src/naming.js';

describe('words', () => {
  it.each([
    ['blog-posts', ['blog', 'posts']],
    ['authorId', ['author', 'id']],
    ['author_id', ['author', 'id']],
    ['HTTPServer', ['http', 'server']],
    ['publishedAt', ['published', 'at']],
    ['v2Items', ['v2', 'items']],
  ])('%s → %j', (given, want) => expect(words(given)).toEqual(want));
});

describe('names', () => {
  it.each([
    ['blog-posts', { camel: 'blogPosts', pascal: 'BlogPosts', snake: 'blog_posts', kebab: 'blog-posts' }],
    ['authorId', { camel: 'authorId', pascal: 'AuthorId', snake: 'author_id', kebab: 'author-id' }],
    ['users', { camel: 'users', pascal: 'Users', snake: 'users', kebab: 'users' }],
  ])('%s', (given, want) => expect(names(given)).toEqual(want));
});

describe('singular type names', () => {
  it.each([
    ['posts', 'Post'],
    ['categories', 'Category'],
    ['boxes', 'Box'],
    ['addresses', 'Address'],
    ['blog-posts', 'BlogPost'],
    ['news', 'News'],
    ['people', 'Person'],
    ['status', 'Status'],
    ['days', 'Day'],
  ])('%s → %s', (given, want) => expect(typeNameOf(given)).toBe(want));

  it('leaves a word that is not plural alone', () => expect(singularWord('data')).toBe('data'));
});
