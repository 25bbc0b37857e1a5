-- V1, V2: the catalog holds the venue's own perpetual names and what its `meta` answer says of them.
--
-- An id is a main-dex name (`BTC`, `kPEPE`) or a builder dex's `<dex>:<coin>` (`xyz:TSLA`), exactly as
-- the venue spells it, and src/domain/instrument-id.ts holds the same pattern for the API's messages.
-- Hand-written CHECK (the Prisma schema language has none, and Prisma's diff neither reads nor drops it).
-- NOT VALID: every id stored before is kept as it is — the old rule (letters and digits, at most 32)
-- is a part of the new one anyway — and every row written from now on is checked.
ALTER TABLE "Instrument" ADD COLUMN     "maxLeverage" INTEGER,
ADD COLUMN     "szDecimals" INTEGER;

ALTER TABLE "Instrument" ADD CONSTRAINT "Instrument_id_venue_name" CHECK ("id" ~ '^([A-Za-z0-9]{1,32}|[a-z0-9]{1,16}:[A-Za-z0-9]{1,32})$') NOT VALID;
