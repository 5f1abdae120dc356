-- The exact industry filter of decisions §13 (filter={"industry": ...} or
-- {"industry": {"in": [...]}}, case-sensitive) and the one-hop filters through
-- it (company.industry on contacts and deals): crm_companies_industry is on
-- lower(industry), for the historic ?industry= filter (any case), which an
-- exact comparison cannot use. Newest first like the list; id last, so the
-- hop's semi-join (SELECT id ... WHERE company_id = ? AND industry = ?) reads
-- the index alone.
CREATE INDEX crm_companies_industry_eq ON crm_companies (company_id, industry, created_at, id);
