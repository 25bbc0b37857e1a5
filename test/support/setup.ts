// Runs before every test file: resolvers that ignore Pothos' planned `query` fail the test that reaches them.
import { checkUnusedQueries } from '../../src/schema/unused-query-check.js';

checkUnusedQueries('error');
