-- The differential test's statements (tests/integration/sql_mariadb.rs): one a line, each run on
-- pinbad and on MariaDB over the same rows. A line starting with `!` is a statement pinbad
-- refuses with an error, one starting with `~` one it answers otherwise (README.md lists each)
-- a line starting with `=` one both refuse with the same error code; every other line must
-- answer as MariaDB does. Statements run in order on one session: a `SET` holds for the lines
-- after it, until one sets it back.
-- Statements whose answer depends on the time compare something that does not.

-- Arithmetic
SELECT 1 + 2
SELECT 7 - 10
SELECT 6 * 7
SELECT 7 / 2
SELECT 1 / 3
SELECT 10 / 4 * 2
SELECT 2 * 10 / 4
SELECT 100 / 7 / 3
SELECT 7 / 0
SELECT 7 DIV 2
SELECT -7 DIV 2
SELECT 7 % 3
SELECT -7 % 3
SELECT MOD(7, 3)
SELECT MOD(7.5, 2)
SELECT 7.5 * 2
SELECT 0.1 + 0.2
SELECT 1e3 / 8
SELECT 2.5 + 1
SELECT -(3 - 5)
SELECT ABS(-4.25)
SELECT SIGN(-3), SIGN(0), SIGN(2.5)
SELECT FLOOR(2.7), FLOOR(-2.7)
SELECT CEIL(2.1), CEILING(-2.1)
SELECT ROUND(2.5)
SELECT ROUND(-2.5)
SELECT ROUND(2.345, 2)
SELECT ROUND(1234.5, -1)
SELECT ROUND(1255, -2)
SELECT ROUND(7 / 3, 3)
SELECT TRUNCATE(2.789, 1)
SELECT TRUNCATE(-2.789, 2)
SELECT TRUNCATE(1289, -2)
SELECT POW(2, 10)
SELECT POWER(2, 0.5)
SELECT SQRT(16)
SELECT SQRT(2)
SELECT SQRT(-1)
SELECT EXP(1)
SELECT LN(10)
SELECT LOG(100)
SELECT LOG(2, 8)
SELECT LOG2(1024)
SELECT LOG10(1000)
SELECT PI()
SELECT GREATEST(1, 3.5, 2)
SELECT LEAST(4, 2, 9)
SELECT GREATEST(1, NULL)
SELECT 5 BETWEEN 1 AND 10
SELECT 3 IN (1, 2, 3)
SELECT 4 NOT IN (1, 2, 3)
SELECT 1 = 1.0
SELECT 2 > 1, 2 < 1, 2 <> 1, 2 != 2
SELECT NULL = NULL, NULL <=> NULL, 1 <=> NULL
SELECT 1 AND 0, 1 OR 0, NOT 1
SELECT 1 XOR 1, 1 XOR 0
SELECT 5 & 3, 5 | 3, 5 ^ 3
SELECT 1 << 4, 256 >> 2
SELECT b'101'
SELECT b'100000001', b'', b'1' + 0, b'11' AS x
SELECT b'1' + 0
SELECT 0x41 + 0
SELECT COALESCE(NULL, NULL, 3)
SELECT IFNULL(NULL, 'x'), IFNULL(2, 'x')
SELECT NULLIF(3, 3), NULLIF(3, 4)
SELECT IF(2 > 1, 'yes', 'no')
SELECT CASE 2 WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END
SELECT CASE WHEN 5 > 3 THEN 'big' ELSE 'small' END
SELECT ISNULL(NULL), ISNULL(0)
SELECT 10 / 3 * 3
SELECT 3 * 1.5
SELECT 1 + '2'
SELECT '3' * '4'
SELECT 2 + NULL
SELECT 1 || 0, 0 || 0
SELECT 7.5 % 2
SELECT 10 MOD 4
SELECT 7.5 DIV 2
SELECT 2 * 3 % 4
SELECT 1 + 2 XOR 0
SELECT NOT 0 XOR 1
SELECT 3 ^ 5 + 1
SELECT !0

-- Casts
SELECT CAST(2.5 AS SIGNED)
SELECT CAST(2.4 AS SIGNED)
SELECT CAST(-2.5 AS SIGNED)
SELECT CAST('42' AS SIGNED)
SELECT CAST('2.7' AS SIGNED)
SELECT CAST(7 / 2 AS SIGNED)
SELECT CAST(3.7 AS UNSIGNED)
SELECT CAST(12 AS CHAR)
SELECT CAST('12abc' AS SIGNED)
SELECT CAST(1.25 AS DECIMAL(10,1))
SELECT CAST(2 AS DECIMAL(10,2))
SELECT CAST('3.14159' AS DECIMAL(10,3))
SELECT CAST(2.5 AS DECIMAL)
SELECT CAST(7 AS DOUBLE) / 2
SELECT CONVERT(42, CHAR)
SELECT CONVERT('17', SIGNED)
SELECT CAST('2024-03-05 10:20:30' AS DATE)
SELECT CAST('2024-03-05' AS DATETIME)
SELECT CAST(NULL AS SIGNED)

-- Strings
SELECT CONCAT('a', 'b', 'c')
SELECT CONCAT('a', NULL)
SELECT CONCAT('n=', 5)
SELECT CONCAT_WS('-', 'a', NULL, 'b')
SELECT LENGTH('abc')
SELECT LENGTH('héllo')
SELECT CHAR_LENGTH('héllo')
SELECT OCTET_LENGTH('héllo')
SELECT UPPER('abc'), LOWER('ABC')
SELECT UCASE('x'), LCASE('Y')
SELECT SUBSTRING('hello world', 7)
SELECT SUBSTRING('hello world', 1, 5)
SELECT SUBSTRING('hello world', -5)
SELECT SUBSTRING('hello world' FROM 7)
SELECT SUBSTRING('hello world' FROM 2 FOR 3)
SELECT SUBSTR('hello', 2, 2)
SELECT MID('hello', 2, 3)
SELECT LEFT('hello', 2), RIGHT('hello', 3)
SELECT SUBSTRING_INDEX('a.b.c', '.', 2)
SELECT SUBSTRING_INDEX('a.b.c', '.', -1)
SELECT TRIM('  x  '), LTRIM('  x'), RTRIM('x  ')
SELECT TRIM(BOTH 'x' FROM 'xxaxx')
SELECT TRIM(LEADING '0' FROM '000123')
SELECT REPLACE('aXbXc', 'X', '-')
SELECT REVERSE('abc')
SELECT REPEAT('ab', 3)
SELECT LPAD('7', 3, '0')
SELECT RPAD('ab', 5, '.')
SELECT LPAD('hello', 3, '0')
SELECT INSTR('foobar', 'bar')
SELECT LOCATE('bar', 'foobarbar')
SELECT LOCATE('bar', 'foobarbar', 5)
SELECT POSITION('b' IN 'abc')
SELECT FIND_IN_SET('b', 'a,b,c')
SELECT FIND_IN_SET('z', 'a,b,c')
SELECT HEX(255)
SELECT HEX('abc')
SELECT UNHEX('616263')
SELECT LOWER(HEX(255))
SELECT ASCII('A')
SELECT CHAR(65)
SELECT SPACE(3)
SELECT STRCMP('a', 'b'), STRCMP('b', 'a'), STRCMP('a', 'a')
SELECT 'a' = 'A'
SELECT 'abc' = 'ABC '
SELECT 'abc ' < 'ABD', 'b' > 'A  ', 'x' = 'x	', '_' < 'a', 'é' = 'É'
SELECT COUNT(*) FROM request WHERE hostname = 'H1  ' OR script_name > '/_'
SELECT 'abc' < 'ABD'
SELECT 'a' LIKE 'A'
SELECT 'hello' LIKE 'h%'
SELECT 'hello' LIKE '_ello'
SELECT 'hello' NOT LIKE '%z%'
SELECT 'Hello' REGEXP '^h'
SELECT 'abc123' REGEXP '[0-9]+$'
SELECT 'abc' RLIKE 'B'
SELECT REGEXP_REPLACE('a1b22c', '[0-9]+', '#')
SELECT REGEXP_SUBSTR('abc123def', '[0-9]+')
SELECT FORMAT(1234567.891, 2)
SELECT FORMAT(1234.5, 0)
SELECT FORMAT(0.5, 3)
SELECT MD5('abc')
SELECT SHA1('abc'), SHA('abc')
SELECT SHA2('abc', 256), SHA2('abc', 0), SHA2('abc', 512), SHA2('abc', 7)
SELECT SHA1(12345), MD5(NULL)
!SELECT COMPRESS('abc')
SELECT ELT(2, 'a', 'b', 'c')
SELECT FIELD('b', 'a', 'b', 'c')
SELECT QUOTE('it''s')
SELECT 'it''s', "dq", 'back\\slash'
SELECT CONCAT(UPPER(LEFT('word', 1)), SUBSTRING('word', 2))
SELECT LENGTH(REPEAT('x', 100))
SELECT INSERT('Quadratic', 3, 4, 'What')
SELECT BIT_LENGTH('ab')

-- Dates, times and intervals (the time now compared through what does not move)
SELECT FROM_UNIXTIME(1700000000)
SELECT FROM_UNIXTIME(1700000000, '%Y-%m-%d')
SELECT FROM_UNIXTIME(1700000000, '%H:%i:%s')
SELECT UNIX_TIMESTAMP('2023-11-14 22:13:20')
SELECT UNIX_TIMESTAMP('2024-02-29')
SELECT DATE_FORMAT('2024-03-05 14:07:09', '%Y/%m/%d %H:%i:%s')
SELECT DATE_FORMAT('2024-03-05 14:07:09', '%a %b %e %l %p')
SELECT DATE_FORMAT('2024-03-05', '%W %M %D %j')
SELECT DATE('2024-03-05 14:07:09')
SELECT TIME('2024-03-05 14:07:09')
SELECT YEAR('2024-03-05'), MONTH('2024-03-05'), DAY('2024-03-05')
SELECT DAYOFMONTH('2024-03-05')
SELECT HOUR('2024-03-05 14:07:09'), MINUTE('2024-03-05 14:07:09'), SECOND('2024-03-05 14:07:09')
SELECT DAYOFWEEK('2024-03-05')
SELECT WEEKDAY('2024-03-05')
SELECT DAYOFYEAR('2024-03-05')
SELECT DAYNAME('2024-03-05'), MONTHNAME('2024-03-05')
SELECT QUARTER('2024-08-01')
SELECT WEEK('2024-03-05')
SELECT LAST_DAY('2024-02-10')
SELECT DATE_ADD('2024-03-05', INTERVAL 1 DAY)
SELECT DATE_ADD('2024-03-05 10:00:00', INTERVAL 90 MINUTE)
SELECT DATE_SUB('2024-03-05', INTERVAL 1 MONTH)
SELECT DATE_SUB('2024-03-31', INTERVAL 1 MONTH)
SELECT DATE_ADD('2024-01-31', INTERVAL 1 MONTH)
SELECT DATE_ADD('2024-02-29', INTERVAL 1 YEAR)
SELECT '2024-03-05' + INTERVAL 2 DAY
SELECT '2024-03-05 10:00:00' - INTERVAL 1 HOUR
SELECT '2024-03-05 10:00:00' + INTERVAL 30 SECOND
SELECT '2024-03-05' - INTERVAL 2 WEEK
SELECT ADDDATE('2024-03-05', 3)
SELECT SUBDATE('2024-03-05', 3)
SELECT DATEDIFF('2024-03-05', '2024-02-01')
SELECT DATEDIFF('2024-03-05 23:59:59', '2024-03-05 00:00:00')
SELECT TIMESTAMPDIFF(SECOND, '2024-03-05 10:00:00', '2024-03-05 10:05:30')
SELECT TIMESTAMPDIFF(MINUTE, '2024-03-05 10:00:00', '2024-03-05 12:30:00')
SELECT TIMESTAMPDIFF(HOUR, '2024-03-05', '2024-03-07')
SELECT TIMESTAMPDIFF(DAY, '2024-03-01', '2024-03-05')
SELECT TIMESTAMPDIFF(MONTH, '2024-01-15', '2024-03-14')
SELECT TIMESTAMPADD(MINUTE, 5, '2024-03-05 10:00:00')
SELECT STR_TO_DATE('05/03/2024', '%d/%m/%Y')
SELECT STR_TO_DATE('2024-03-05 10:20:30', '%Y-%m-%d %H:%i:%s')
SELECT MAKEDATE(2024, 60)
SELECT SEC_TO_TIME(3725)
SELECT TIME_TO_SEC('01:02:05')
SELECT TO_DAYS('2024-03-05')
SELECT FROM_DAYS(739315)
SELECT EXTRACT(YEAR FROM '2024-03-05'), EXTRACT(MONTH FROM '2024-03-05 10:00:00')
SELECT EXTRACT(HOUR FROM '2024-03-05 10:20:30')
SELECT DATE_ADD('2024-03-05', INTERVAL -1 DAY)
SELECT DATE_ADD('2024-03-05 10:00:00', INTERVAL 2 * 3 HOUR)
SELECT '2024-03-05' + INTERVAL 1 DAY + INTERVAL 1 HOUR
SELECT DATE_FORMAT('2024-03-05' - INTERVAL 1 DAY, '%Y%m%d')
SELECT NOW() = CURRENT_TIMESTAMP
SELECT NOW() - INTERVAL 1 DAY < NOW()
SELECT NOW() + INTERVAL 1 HOUR > NOW()
SELECT TIMESTAMPDIFF(SECOND, NOW() - INTERVAL 1 HOUR, NOW())
SELECT DATEDIFF(NOW(), NOW() - INTERVAL 7 DAY)
SELECT DATE_SUB(NOW(), INTERVAL 1 DAY) < NOW()
SELECT DATE_ADD(NOW(), INTERVAL 10 MINUTE) > NOW()
SELECT UNIX_TIMESTAMP(NOW()) - UNIX_TIMESTAMP() BETWEEN -2 AND 0
SELECT ABS(UNIX_TIMESTAMP(UTC_TIMESTAMP()) - UNIX_TIMESTAMP()) < 3
SELECT DATE(NOW()) = CURDATE()
SELECT CURDATE() = CURRENT_DATE
SELECT LENGTH(NOW()), LENGTH(CURDATE()), LENGTH(CURTIME())
SELECT LENGTH(UTC_TIMESTAMP())
SELECT YEAR(NOW()) >= 2024
SELECT HOUR(NOW()) BETWEEN 0 AND 23
SELECT FROM_UNIXTIME(UNIX_TIMESTAMP('2024-03-05 10:20:30'))
SELECT UNIX_TIMESTAMP('2024-03-05 10:20:30') DIV 60 * 60
SELECT FROM_UNIXTIME(FLOOR(1700000123 / 300) * 300)

-- Dates by MySQL's rules: every DATE_FORMAT specifier, STR_TO_DATE's, weeks by mode at the new
-- year, fractional seconds (compared as text: CONCAT shows what the mysql client shows), the
-- numeric forms of dates, TIME's range, the calendar's bounds
SELECT DATE_FORMAT('2024-03-05 14:07:09.123456', '%a %b %c %D %d %e %f %H %h %I %i %j %k %l %M %m %p %r %S %s %T')
SELECT DATE_FORMAT('2024-03-05 14:07:09', '%U %u %V %v %W %w %X %x %Y %y %% %Q %')
SELECT DATE_FORMAT('2024-12-31 00:00:00', '%U %u %V %v %X %x %j %r %h %l %p')
SELECT DATE_FORMAT('2025-01-01 12:00:00', '%U %u %V %v %X %x %j %r %D %a')
SELECT DATE_FORMAT('2021-01-03', '%U %u %V %v %X %x'), DATE_FORMAT('2020-12-31', '%U %u %V %v %X %x')
SELECT DATE_FORMAT('2000-02-29', '%j %D %W'), DATE_FORMAT('1900-02-28', '%j %a'), DATE_FORMAT('0001-01-01', '%Y %W %U')
SELECT DATE_FORMAT('9999-12-31 23:59:59', '%Y %j %U %v %x %r'), DATE_FORMAT('2024-03-11', '%D'), DATE_FORMAT('2024-03-22', '%D'), DATE_FORMAT('2024-03-23', '%D')
SELECT DATE_FORMAT(20240305, '%Y-%m-%d'), DATE_FORMAT(20240305102030, '%T'), DATE_FORMAT('2024-00-05', '%Y %m %d')
SELECT DATE_FORMAT('2024-02-30', '%Y'), DATE_FORMAT('10:20:30', '%H'), DATE_FORMAT('0000-00-00', '%Y'), DATE_FORMAT(NULL, '%Y'), DATE_FORMAT('2024-03-05', NULL)
SELECT TIME_FORMAT('14:07:09', '%H %h %I %i %k %l %p %r %S %s %T %f %%'), TIME_FORMAT('100:00:00', '%H %k %h'), TIME_FORMAT('-01:02:03', '%T')
SELECT TIME_FORMAT('10:20:30', '%Y'), TIME_FORMAT('2024-03-05 10:20:30', '%H:%i')
SELECT WEEK('2024-01-01', 0), WEEK('2024-01-01', 1), WEEK('2024-01-01', 2), WEEK('2024-01-01', 3), WEEK('2024-01-01', 4), WEEK('2024-01-01', 5), WEEK('2024-01-01', 6), WEEK('2024-01-01', 7)
SELECT WEEK('2023-01-01', 0), WEEK('2023-01-01', 1), WEEK('2023-01-01', 2), WEEK('2023-01-01', 3), WEEK('2023-01-01', 4), WEEK('2023-01-01', 5), WEEK('2023-01-01', 6), WEEK('2023-01-01', 7)
SELECT WEEK('2021-01-03', 0), WEEK('2021-01-03', 1), WEEK('2021-01-03', 2), WEEK('2021-01-03', 3), WEEK('2021-01-03', 4), WEEK('2021-01-03', 5), WEEK('2021-01-03', 6), WEEK('2021-01-03', 7)
SELECT WEEK('2020-12-31', 0), WEEK('2020-12-31', 1), WEEK('2020-12-31', 2), WEEK('2020-12-31', 3), WEEK('2020-12-31', 4), WEEK('2020-12-31', 5), WEEK('2020-12-31', 6), WEEK('2020-12-31', 7)
SELECT WEEK('2026-01-01', 0), WEEK('2026-01-01', 1), WEEK('2026-01-01', 2), WEEK('2026-01-01', 3), WEEK('2026-01-01', 4), WEEK('2026-01-01', 5), WEEK('2026-01-01', 6), WEEK('2026-01-01', 7)
SELECT WEEK('2027-01-02', 0), WEEK('2027-01-02', 1), WEEK('2027-01-02', 2), WEEK('2027-01-02', 3), WEEK('2027-01-02', 4), WEEK('2027-01-02', 5), WEEK('2027-01-02', 6), WEEK('2027-01-02', 7)
SELECT WEEK('2024-12-30', 0), WEEK('2024-12-30', 1), WEEK('2024-12-30', 2), WEEK('2024-12-30', 3), WEEK('2024-12-30', 4), WEEK('2024-12-30', 5), WEEK('2024-12-30', 6), WEEK('2024-12-30', 7)
SELECT WEEK('2024-03-05'), WEEK(20240305, 3), WEEK(NULL, 1), WEEK('2024-00-05', 1), WEEK('2024-03-05', 8), WEEK('2024-03-05', -1)
SELECT YEARWEEK('2024-01-01'), YEARWEEK('2024-01-01', 1), YEARWEEK('2023-01-01', 3), YEARWEEK('2021-01-03', 2), YEARWEEK('2024-12-30', 3), YEARWEEK('2027-01-02', 6)
SELECT WEEKOFYEAR('2024-01-01'), WEEKOFYEAR('2021-01-03'), WEEKOFYEAR('2024-12-30'), WEEKOFYEAR('2020-12-31')
SELECT DAYOFWEEK('2024-03-05'), DAYOFWEEK('2024-03-10'), WEEKDAY('2024-03-10'), DAYOFYEAR('2024-12-31'), DAYOFYEAR('2023-12-31'), DAYOFYEAR('2024-02-29')
SELECT DAYNAME('2024-02-29'), MONTHNAME('2024-12-01'), DAYOFWEEK('2024-00-05'), DAYNAME(20240305)
SELECT STR_TO_DATE('March 5 2024', '%M %e %Y'), STR_TO_DATE('10:20 PM', '%h:%i %p'), STR_TO_DATE('2024 065', '%Y %j')
SELECT STR_TO_DATE('10:20 PM', '%H:%i %p'), STR_TO_DATE('2024', '%Y-%m-%d'), STR_TO_DATE('2024-03-05 extra', '%Y-%m-%d')
SELECT STR_TO_DATE('10:20', '%H:%i'), STR_TO_DATE('5th Mar 24', '%D %b %y'), STR_TO_DATE('Tue 2024-03-05', '%a %Y-%m-%d')
SELECT CONCAT(STR_TO_DATE('2024-03-05 10:20:30.5', '%Y-%m-%d %H:%i:%s.%f'), ''), STR_TO_DATE('  2024-3-5', '%Y-%m-%d')
SELECT STR_TO_DATE('2024x03', '%Yx%m'), STR_TO_DATE('03/05/2024 01:02:03 pm', '%m/%d/%Y %r'), STR_TO_DATE('24', '%Y')
SELECT STR_TO_DATE('abc', '%Y'), STR_TO_DATE('2024-3-5', '%Y %m %d'), STR_TO_DATE('10:61', '%H:%i'), STR_TO_DATE('12:00:00 AM', '%r')
SELECT STR_TO_DATE('Wednesday, 6 March 2024 23:59:59', '%W, %e %M %Y %T'), STR_TO_DATE('1999-366', '%Y-%j'), STR_TO_DATE('2024-366', '%Y-%j')
SELECT STR_TO_DATE('13:00 am', '%h:%i %p'), STR_TO_DATE('2024-02-30', '%Y-%m-%d'), STR_TO_DATE(NULL, '%Y'), STR_TO_DATE('2024', NULL)
SELECT CONCAT(FROM_UNIXTIME(1.5), ''), CONCAT(FROM_UNIXTIME(1.25), ''), CONCAT(FROM_UNIXTIME(1.123456789), '')
SELECT FROM_UNIXTIME(-1), FROM_UNIXTIME(2147483647), FROM_UNIXTIME(2147483648), FROM_UNIXTIME(0), FROM_UNIXTIME(NULL)
SELECT FROM_UNIXTIME(1.5, '%s.%f'), FROM_UNIXTIME(1700000000, '%U %u %V %v %X %x %r')
SELECT UNIX_TIMESTAMP(20240305), UNIX_TIMESTAMP(240305), UNIX_TIMESTAMP(20240305102030), UNIX_TIMESTAMP('20240305')
SELECT UNIX_TIMESTAMP('1969-12-31 23:59:59'), UNIX_TIMESTAMP('2038-01-19 03:14:07'), UNIX_TIMESTAMP('2038-01-19 03:14:08'), UNIX_TIMESTAMP('abc'), UNIX_TIMESTAMP('2024-02-30'), UNIX_TIMESTAMP('0000-00-00')
SELECT CONCAT(UNIX_TIMESTAMP('2024-03-05 00:00:00.5'), ''), UNIX_TIMESTAMP('2024-03-05T10:20:30')
SELECT LENGTH(NOW(3)), LENGTH(NOW(6)), LENGTH(CURTIME(2)), LENGTH(UTC_TIMESTAMP(1)), LENGTH(SYSDATE(4)), LENGTH(CURRENT_TIMESTAMP(3)), LENGTH(UTC_TIME(6))
SELECT NOW(3) >= NOW() - INTERVAL 1 SECOND, DATE(NOW(6)) = CURDATE()
SELECT MICROSECOND('2024-03-05 10:20:30.25'), MICROSECOND('10:20:30.000001'), MICROSECOND(20240305102030.5), MICROSECOND('2024-03-05')
SELECT HOUR('838:00:00'), MINUTE(3725), SECOND('10:20:30'), HOUR('2024-03-05'), YEAR('10:20:30'), HOUR(NULL)
SELECT EXTRACT(MICROSECOND FROM '10:20:30.5'), EXTRACT(WEEK FROM '2024-01-07'), EXTRACT(HOUR FROM '838:00:00')
SELECT DATE('0000-00-00'), DATE('2024-02-30'), DATE('2024-00-05'), DATE('2024-03-00'), DATE(20240305), DATE('20240305')
SELECT DATE('240305'), DATE(240305), DATE('24-3-5'), DATE('2024/3/5 1:2:3'), DATE('2024-03-05x'), DATE(''), DATE('abc'), DATE(0), DATE(101), DATE(99)
SELECT CAST('20240305' AS DATE), CAST(20240305 AS DATE), CAST('2024-03-05 10:20:30' AS DATETIME), CAST(20240305102030 AS DATETIME), CAST('2024-02-30' AS DATE)
SELECT CAST(3725 AS TIME), CAST('3725' AS TIME), CAST(-3725 AS TIME), CAST('838:59:59' AS TIME), CAST('839:00:00' AS TIME), CAST('1 02:00:00' AS TIME)
SELECT TIME(3725), TIME('-00:00:01'), CONCAT(TIME(3725.5), ''), CONCAT(TIME('10:20:30.123'), ''), TIME(20240305102030), TIME('abc'), TIME(''), TIME(NULL)
SELECT SEC_TO_TIME(-3725), SEC_TO_TIME(4000000), SEC_TO_TIME(0), CONCAT(SEC_TO_TIME(3725.5), ''), SEC_TO_TIME(NULL)
SELECT TIME_TO_SEC('-01:00:00'), TIME_TO_SEC('838:00:00'), TIME_TO_SEC('2024-03-05 10:00:00'), TIME_TO_SEC(3725), TIME_TO_SEC('abc')
SELECT TIMEDIFF('10:00:00', '12:30:00'), TIMEDIFF('2024-03-05 10:00:00', '2024-03-01 00:00:00'), TIMEDIFF('2024-03-05 10:00:00', '2024-01-01 00:00:00'), TIMEDIFF('2024-03-05', '2024-03-06')
SELECT MAKETIME(10, 20, 30), MAKETIME(-1, 2, 3), MAKETIME(900, 0, 0), MAKETIME(1, 60, 0), CONCAT(MAKETIME(1, 2, 3.5), ''), MAKETIME(NULL, 1, 1)
SELECT ADDTIME('2024-03-05 23:00:00', '02:00:00'), ADDTIME('10:00:00', '20:00:00'), SUBTIME('10:00:00', '20:00:00'), SUBTIME('2024-03-05 01:00:00', '1 02:00:00')
SELECT MAKEDATE(2024, 366), MAKEDATE(2023, 366), MAKEDATE(24, 1), MAKEDATE(2024, 0), MAKEDATE(9999, 366), MAKEDATE(99, 1)
SELECT LAST_DAY('2024-02-10'), LAST_DAY('2023-02-10'), LAST_DAY('2024-12-31 10:00:00'), LAST_DAY(20240405), LAST_DAY('2024-13-01'), LAST_DAY('2024-00-10')
SELECT TO_DAYS('2024-03-05'), TO_DAYS('0001-01-01'), TO_DAYS('9999-12-31'), TO_DAYS(20240305), TO_DAYS('2024-00-05')
SELECT FROM_DAYS(739315), FROM_DAYS(366), FROM_DAYS(365), FROM_DAYS(0), FROM_DAYS(3652424), FROM_DAYS(3652425)
SELECT PERIOD_ADD(202401, 1), PERIOD_ADD(202412, 1), PERIOD_ADD(2401, -1), PERIOD_ADD(9912, 1), PERIOD_ADD(0, 5)
SELECT PERIOD_DIFF(202403, 202312), PERIOD_DIFF(2403, 202312), PERIOD_DIFF(7001, 6912)
SELECT CONVERT_TZ('2024-03-05 10:00:00', '+00:00', '+05:30'), CONVERT_TZ('2024-03-05 01:00:00', '+02:00', '-03:00'), CONVERT_TZ('2024-03-05 10:00:00', '+00:00', 'nowhere')
SELECT DATE_ADD('9999-12-31', INTERVAL 1 DAY), DATE_ADD('0001-01-01', INTERVAL -1 DAY), DATE_ADD('9999-12-31 23:59:59', INTERVAL 1 SECOND), DATE_ADD('2024-00-05', INTERVAL 1 DAY)
SELECT DATE_ADD('9999-12-31', INTERVAL 1 MONTH), DATE_ADD('0000-00-00', INTERVAL 1 DAY), DATE_ADD(20240305, INTERVAL 1 DAY), DATE_ADD('10:00:00', INTERVAL 1 HOUR)
SELECT CONCAT(DATE_ADD('2024-03-05 10:00:00.5', INTERVAL 1 SECOND), ''), DATE_ADD('2024-03-05', INTERVAL 1 SECOND), CONCAT(DATE_ADD('2024-03-05', INTERVAL 1.5 SECOND), ''), DATE_ADD('2024-03-05', INTERVAL 1.5 DAY)
SELECT CONCAT(DATE_ADD('2024-03-05', INTERVAL 1 MICROSECOND), ''), DATE_ADD('2024-03-05', INTERVAL '1:30' HOUR_MINUTE), DATE_ADD('2024-03-05', INTERVAL '1-2' YEAR_MONTH), DATE_ADD('2024-03-05 10:00:00', INTERVAL '1 2:3:4' DAY_SECOND)
SELECT DATE_SUB('2024-03-05', INTERVAL '1 12' DAY_HOUR), DATE_ADD('2024-02-29', INTERVAL 4 YEAR), DATE_ADD('2024-02-29', INTERVAL -12 MONTH), DATE_ADD('2024-03-05', INTERVAL 2 QUARTER)
SELECT TIMESTAMPDIFF(MICROSECOND, '2024-03-05', '2024-03-05 00:00:01.5'), TIMESTAMPDIFF(MONTH, '2024-01-31', '2024-02-29'), TIMESTAMPDIFF(YEAR, '2000-02-29', '2024-02-28'), TIMESTAMPDIFF(WEEK, '2024-01-01', '2024-03-05')
SELECT TIMESTAMPDIFF(MONTH, '2024-03-31 10:00:00', '2024-02-29 11:00:00'), TIMESTAMPDIFF(QUARTER, '2024-01-01', '2024-12-31'), TIMESTAMPDIFF(DAY, 20240301, 20240305)
SELECT DATEDIFF('2024-03-01', '2023-03-01'), DATEDIFF(20240305, '2024-03-01 23:59:59'), DATEDIFF('2024-02-30', '2024-03-01')
SELECT SUBSTRING('hello', 0), SUBSTRING('hello', 0, 2), SUBSTRING('hello', -3), SUBSTRING('hello', -3, 2), SUBSTRING('hello', -6), SUBSTRING('hello', 2, -1), SUBSTRING('hello', 6)
SELECT MID('hello', 2, 3), MID('hello', 0, 3), SUBSTR('hello', -2), SUBSTRING('héllo' FROM 2 FOR 2), SUBSTRING('hello' FROM -4), SUBSTRING(NULL, 1), SUBSTRING('abc', NULL)
SELECT LEFT('hello', 0), LEFT('hello', -1), RIGHT('hello', -1), RIGHT('hello', 9), LEFT('hello', 2.5), RIGHT('hello', 2.4)
SELECT LOCATE('l', 'hello', 0), LOCATE('l', 'hello', -1), LOCATE('l', 'hello', 4), LOCATE('l', 'hello', 9), LOCATE('', 'hello'), LOCATE('', 'hello', 3), LOCATE('', 'hello', 9)
SELECT INSERT('hello', 0, 2, 'X'), INSERT('hello', 1, 0, 'X'), INSERT('hello', 5, 9, 'X'), INSERT('hello', 6, 1, 'X'), INSERT('hello', 2, -1, 'X'), INSERT('hello', -1, 2, 'X')
SELECT id, DATE_FORMAT(FROM_UNIXTIME(timestamp), '%U %u %V %v %X %x %r %j %f'), WEEK(FROM_UNIXTIME(timestamp), 3), YEARWEEK(FROM_UNIXTIME(timestamp)), TIME_FORMAT(FROM_UNIXTIME(timestamp), '%h:%i %p') FROM request ORDER BY id LIMIT 5
SELECT SUBSTRING(script_name, 0), SUBSTRING(script_name, -4), SUBSTRING(script_name, 2, 3), LEFT(script_name, -1), LOCATE('.', script_name, 0) FROM request ORDER BY id LIMIT 3

-- Aggregates over the raw tables
SELECT COUNT(*) FROM request
SELECT COUNT(*) / 7 FROM request
SELECT COUNT(DISTINCT hostname) FROM request
SELECT COUNT(DISTINCT script_name, status) FROM request
SELECT SUM(req_time), AVG(req_time), MIN(req_time), MAX(req_time) FROM request
SELECT AVG(status) FROM request
SELECT SUM(status) FROM request
SELECT AVG(doc_size) FROM request
SELECT SUM(doc_size) / COUNT(*) FROM request
SELECT SUM(status >= 500) / NULLIF(COUNT(*), 0) * 100 FROM request
SELECT ROUND(100 * SUM(status = 404) / COUNT(*), 2) FROM request
SELECT CONCAT(ROUND(100 * SUM(status = 404) / COUNT(*), 2), '%') FROM request
SELECT CONCAT(ROUND(100 * COUNT(*) / COUNT(*), 2), '%') FROM request
SELECT SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END) FROM request
SELECT COUNT(CASE WHEN status = 200 THEN 1 END) FROM request
SELECT STDDEV(req_time) FROM request
SELECT STD(req_time) FROM request
SELECT STDDEV_POP(req_time), STDDEV_SAMP(req_time) FROM request
SELECT VARIANCE(req_time) FROM request
SELECT VAR_POP(status), VAR_SAMP(status) FROM request
SELECT BIT_OR(status), BIT_AND(status) FROM request
SELECT MIN(script_name), MAX(script_name) FROM request
SELECT GROUP_CONCAT(DISTINCT hostname ORDER BY hostname) FROM request
SELECT GROUP_CONCAT(DISTINCT hostname ORDER BY hostname SEPARATOR '|') FROM request
SELECT GROUP_CONCAT(DISTINCT status ORDER BY status DESC) FROM request
SELECT GROUP_CONCAT(DISTINCT schema ORDER BY schema SEPARATOR '') FROM request
SELECT COUNT(*) FROM request WHERE status = 200
SELECT COUNT(*) FROM request WHERE script_name = '/INDEX.PHP'
SELECT COUNT(*) FROM request WHERE script_name LIKE '/admin%'
SELECT COUNT(*) FROM request WHERE server_name = 's1.example.com'
SELECT COUNT(*) FROM request WHERE hostname IN ('h0', 'H1')
SELECT COUNT(*) FROM request WHERE req_time > 5
SELECT COUNT(*) FROM request WHERE req_time BETWEEN 1 AND 2
SELECT COUNT(*) FROM request WHERE status <> 200 AND req_time < 3
SELECT COUNT(*) FROM request WHERE tags LIKE '%country=nl%'
SELECT COUNT(*) FROM request WHERE schema = 'HTTPS'
SELECT COUNT(*) FROM request WHERE script_name REGEXP 'php$'
SELECT SUM(timers_cnt), SUM(tags_cnt) FROM request
SELECT MAX(timestamp) - MIN(timestamp) < 600 FROM request
SELECT COUNT(*) FROM request WHERE timestamp > UNIX_TIMESTAMP() - 3600
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) > NOW() - INTERVAL 1 HOUR
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) > DATE_SUB(NOW(), INTERVAL 1 DAY)
SELECT SUM(hit_count), SUM(value), AVG(value) FROM timer
SELECT COUNT(*), COUNT(DISTINCT request_id) FROM timer
SELECT COUNT(*) FROM timertag
SELECT COUNT(*) FROM tag
SELECT MAX(mem_peak_usage), MIN(memory_footprint) FROM request
SELECT SUM(ru_utime + ru_stime) FROM request
SELECT AVG(req_time * 1000) FROM request
SELECT COUNT(*) FROM request WHERE status = 200 XOR req_time > 5

-- GROUP BY, HAVING, ORDER BY, LIMIT
SELECT hostname, COUNT(*) FROM request GROUP BY hostname ORDER BY hostname
SELECT status, COUNT(*) FROM request GROUP BY status ORDER BY status
SELECT status, COUNT(*) AS n FROM request GROUP BY status ORDER BY n DESC, status
SELECT script_name, COUNT(*), AVG(req_time) FROM request GROUP BY script_name ORDER BY script_name
SELECT script_name, SUM(req_time) / COUNT(*) FROM request GROUP BY script_name ORDER BY 1
SELECT server_name, COUNT(*) FROM request GROUP BY server_name ORDER BY server_name
SELECT hostname, status, COUNT(*) FROM request GROUP BY hostname, status ORDER BY hostname, status
SELECT hostname, MAX(req_time) FROM request GROUP BY hostname HAVING MAX(req_time) > 5 ORDER BY hostname
SELECT script_name, COUNT(*) AS c FROM request GROUP BY script_name HAVING c > 50 ORDER BY c DESC, script_name
SELECT status, COUNT(*) FROM request GROUP BY status HAVING COUNT(*) BETWEEN 10 AND 1000 ORDER BY status
SELECT script_name FROM request GROUP BY script_name ORDER BY script_name DESC
SELECT script_name FROM request GROUP BY script_name ORDER BY script_name LIMIT 2
SELECT script_name FROM request GROUP BY script_name ORDER BY script_name LIMIT 1, 2
SELECT script_name FROM request GROUP BY script_name ORDER BY script_name LIMIT 2 OFFSET 1
SELECT id, req_time FROM request ORDER BY req_time DESC, id LIMIT 5
SELECT id, script_name FROM request ORDER BY id LIMIT 3
SELECT id FROM request ORDER BY id DESC LIMIT 3
SELECT DISTINCT hostname FROM request ORDER BY hostname
SELECT DISTINCT status FROM request ORDER BY status DESC
SELECT DISTINCT schema FROM request
SELECT hostname, ROUND(AVG(req_time), 3) FROM request GROUP BY hostname ORDER BY hostname
SELECT status DIV 100 AS class, COUNT(*) FROM request GROUP BY class ORDER BY class
SELECT FLOOR(req_time) AS bucket, COUNT(*) FROM request GROUP BY bucket ORDER BY bucket
SELECT ROUND(req_time, -1) AS b, COUNT(*) FROM request GROUP BY b ORDER BY b
SELECT status, GROUP_CONCAT(DISTINCT hostname ORDER BY hostname) FROM request GROUP BY status ORDER BY status
SELECT hostname, GROUP_CONCAT(DISTINCT status ORDER BY status SEPARATOR ';') FROM request GROUP BY hostname ORDER BY hostname
SELECT script_name, MIN(req_time), MAX(req_time) FROM request GROUP BY script_name ORDER BY MAX(req_time) DESC
SELECT script_name, hostname, req_time, MAX(req_time) FROM request GROUP BY script_name ORDER BY script_name
SELECT script_name, hostname, MAX(req_time), MIN(hostname) FROM request GROUP BY script_name ORDER BY script_name
SELECT hostname, server_name, MIN(CAST(req_time AS DECIMAL(10,3))) FROM request GROUP BY hostname ORDER BY hostname
SELECT UPPER(hostname), MAX(status) FROM request GROUP BY server_name ORDER BY server_name
SELECT timestamp, MIN(req_time) FROM request
SELECT LOWER(script_name), COUNT(*) FROM request GROUP BY LOWER(script_name) ORDER BY 1
SELECT UPPER(server_name) AS s, COUNT(*) FROM request GROUP BY s ORDER BY s
SELECT LEFT(script_name, 4) AS p, COUNT(*) FROM request GROUP BY p ORDER BY p
SELECT SUBSTRING_INDEX(tags, '=', -1) AS country, COUNT(*) FROM request GROUP BY country ORDER BY country
SELECT IF(status >= 400, 'error', 'ok') AS kind, COUNT(*) FROM request GROUP BY kind ORDER BY kind
SELECT CASE WHEN req_time < 1 THEN 'fast' WHEN req_time < 5 THEN 'ok' ELSE 'slow' END AS speed, COUNT(*) FROM request GROUP BY speed ORDER BY speed
SELECT hostname, SUM(status = 500) / COUNT(*) AS ratio FROM request GROUP BY hostname ORDER BY hostname
SELECT hostname, COUNT(*) * 100 / (SELECT COUNT(*) FROM request) FROM request GROUP BY hostname ORDER BY hostname
SELECT schema, COUNT(*) FROM request GROUP BY schema ORDER BY schema
SELECT status, SUM(doc_size) FROM request GROUP BY status ORDER BY SUM(doc_size) DESC
SELECT script_name, STDDEV(req_time) FROM request GROUP BY script_name ORDER BY script_name
SELECT hostname, VARIANCE(req_time) FROM request GROUP BY hostname ORDER BY hostname
SELECT hostname, COUNT(DISTINCT script_name) FROM request GROUP BY hostname ORDER BY hostname
SELECT server_name, script_name, COUNT(*) FROM request GROUP BY server_name, script_name ORDER BY server_name, script_name
SELECT status, COUNT(*) FROM request WHERE script_name <> '/cron.php' GROUP BY status ORDER BY status
SELECT COUNT(*) FROM (SELECT hostname FROM request GROUP BY hostname) t
SELECT hostname FROM request GROUP BY hostname HAVING SUM(req_time) > 10 ORDER BY hostname
SELECT script_name, COUNT(*) FROM request GROUP BY script_name ORDER BY COUNT(*) DESC, script_name LIMIT 2
SELECT status, AVG(req_time) AS a FROM request GROUP BY status ORDER BY a, status
SELECT status, MAX(id) - MIN(id) >= 0 FROM request GROUP BY status ORDER BY status
SELECT hostname, status FROM request GROUP BY hostname, status HAVING COUNT(*) > 5 ORDER BY hostname, status
SELECT DATE(FROM_UNIXTIME(timestamp)) = CURDATE() AS today, COUNT(*) FROM request GROUP BY today
SELECT COUNT(*) FROM request GROUP BY hostname WITH ROLLUP
SELECT hostname, COUNT(*) FROM request GROUP BY hostname WITH ROLLUP
SELECT hostname, status, COUNT(*), SUM(req_time) FROM request GROUP BY hostname, status WITH ROLLUP
SELECT script_name, COUNT(*) AS c, MAX(req_time) FROM request GROUP BY script_name WITH ROLLUP HAVING c > 5
SELECT CONCAT(hostname, '!') AS h, COUNT(*) FROM request GROUP BY hostname DESC WITH ROLLUP LIMIT 3
SELECT hostname, COUNT(*) FROM request WHERE status = 999 GROUP BY hostname WITH ROLLUP
SELECT r.hostname, COUNT(DISTINCT r.status), 'x' FROM request r GROUP BY r.hostname WITH ROLLUP
SELECT hostname, schema, ROUND(AVG(req_time), 3) AS t FROM request GROUP BY hostname, schema WITH ROLLUP HAVING COUNT(*) > 1 AND hostname IS NOT NULL
!SELECT hostname, status, COUNT(*) FROM request GROUP BY hostname WITH ROLLUP

-- Subqueries
SELECT (SELECT COUNT(*) FROM request) > 0
SELECT COUNT(*) FROM request WHERE req_time > (SELECT AVG(req_time) FROM request)
SELECT COUNT(*) FROM request WHERE hostname IN (SELECT hostname FROM request WHERE status = 500)
SELECT COUNT(*) FROM request WHERE id NOT IN (SELECT request_id FROM timer)
SELECT COUNT(*) FROM request r WHERE EXISTS (SELECT 1 FROM timer t WHERE t.request_id = r.id)
SELECT COUNT(*) FROM request r WHERE NOT EXISTS (SELECT 1 FROM timer t WHERE t.request_id = r.id)
SELECT MAX(c) FROM (SELECT hostname, COUNT(*) AS c FROM request GROUP BY hostname) AS x
SELECT AVG(n) FROM (SELECT COUNT(*) AS n FROM request GROUP BY script_name) AS x
SELECT hostname, (SELECT COUNT(*) FROM request r2 WHERE r2.hostname = r.hostname) AS c FROM request r GROUP BY hostname ORDER BY hostname
SELECT script_name FROM request WHERE req_time = (SELECT MAX(req_time) FROM request) ORDER BY id LIMIT 1
SELECT COUNT(*) FROM (SELECT DISTINCT script_name, status FROM request) AS d
SELECT s, n FROM (SELECT script_name AS s, COUNT(*) AS n FROM request GROUP BY script_name) x WHERE n > 10 ORDER BY s
SELECT COUNT(*) FROM request WHERE status = ANY (SELECT 500)
SELECT COUNT(*) FROM request WHERE req_time > ALL (SELECT req_time FROM request WHERE status = 302)
SELECT 3 > ALL (SELECT 1 UNION SELECT 2), 2 > ALL (SELECT 1 UNION SELECT 2), 3 > ALL (SELECT 1 UNION SELECT NULL), 0 > ALL (SELECT 1 UNION SELECT NULL)
SELECT 1 > ALL (SELECT req_time FROM request WHERE status = 999), NULL > ALL (SELECT 1), NULL > ALL (SELECT 1 FROM request WHERE status = 999)
SELECT 3 < ANY (SELECT 1 UNION SELECT 5), 3 < SOME (SELECT 1 UNION SELECT NULL), 9 < ANY (SELECT 1 UNION SELECT 5), 1 < ANY (SELECT req_time FROM request WHERE status = 999)
SELECT 2 = ALL (SELECT 2 UNION ALL SELECT 2), 2 <> ANY (SELECT 2 UNION SELECT 3), 2 != ANY (SELECT 2), 'a' = ALL (SELECT 'A '), 1 + 1 <= ALL (SELECT 2) AND 1 >= ANY (SELECT 0)
SELECT COUNT(*) FROM request r WHERE r.req_time >= ALL (SELECT req_time FROM request WHERE hostname = r.hostname)
SELECT hostname, COUNT(*) FROM request r WHERE NOT r.req_time < ANY (SELECT AVG(req_time) FROM request) GROUP BY hostname ORDER BY hostname
SELECT hostname, COUNT(*) FROM request GROUP BY hostname HAVING COUNT(*) > ALL (SELECT 1)
SELECT hostname, COUNT(*) > ALL (SELECT COUNT(*) / 10 FROM request GROUP BY script_name) AS big FROM request GROUP BY hostname
SELECT script_name FROM request GROUP BY script_name HAVING AVG(req_time) >= ANY (SELECT AVG(req_time) * 2 FROM request GROUP BY hostname) ORDER BY script_name
-- (MariaDB 10.11 answers `SUM(status) < SOME (SELECT NULL UNION SELECT 0)` grouped by status
-- NULL for the first group and 0 for the next: its cached subquery loses the NULL; ungrouped,
-- and with a literal, it answers NULL, as pinbad does.)
SELECT status, MAX(timers_cnt) = ALL (SELECT MAX(timers_cnt) FROM request) AS top, SUM(status) < SOME (SELECT 1 UNION SELECT 0) AS n FROM request GROUP BY status
SELECT SUM(status) < SOME (SELECT NULL UNION SELECT 0), MAX(status) > ALL (SELECT NULL UNION SELECT 0) FROM request
WITH s AS (SELECT script_name, COUNT(*) AS n FROM request GROUP BY script_name) SELECT script_name, n FROM s ORDER BY n DESC, script_name
WITH t AS (SELECT status, AVG(req_time) AS a FROM request GROUP BY status) SELECT COUNT(*) FROM t WHERE a > 1
SELECT (SELECT MAX(status) FROM request) - (SELECT MIN(status) FROM request)
SELECT COUNT(*) FROM request WHERE (hostname, status) IN (SELECT hostname, MAX(status) FROM request GROUP BY hostname)

-- Joins
SELECT COUNT(*) FROM timer t JOIN request r ON t.request_id = r.id
SELECT r.script_name, COUNT(*), SUM(t.value) FROM timer t JOIN request r ON t.request_id = r.id GROUP BY r.script_name ORDER BY r.script_name
SELECT tag.name, tt.value, COUNT(*) FROM timertag tt JOIN tag ON tt.tag_id = tag.id GROUP BY tag.name, tt.value ORDER BY 1, 2
SELECT tt.value, SUM(t.hit_count), SUM(t.value) FROM timer t JOIN timertag tt ON tt.timer_id = t.id JOIN tag ON tag.id = tt.tag_id WHERE tag.name = 'group' GROUP BY tt.value ORDER BY tt.value
SELECT COUNT(*) FROM request r LEFT JOIN timer t ON t.request_id = r.id WHERE t.id IS NULL
SELECT r.hostname, COUNT(t.id) FROM request r LEFT JOIN timer t ON t.request_id = r.id GROUP BY r.hostname ORDER BY r.hostname
SELECT COUNT(*) FROM request a JOIN request b ON a.id = b.id
SELECT COUNT(*) FROM request r, timer t WHERE r.id = t.request_id AND r.status = 200
SELECT COUNT(*) FROM timer t INNER JOIN request r ON r.id = t.request_id WHERE r.script_name = '/index.php'
SELECT tag.name, COUNT(DISTINCT tt.value) FROM tag JOIN timertag tt ON tt.tag_id = tag.id GROUP BY tag.name ORDER BY tag.name
SELECT tt.value, COUNT(*) FROM timertag tt JOIN tag ON tag.id = tt.tag_id WHERE tag.name = 'op' AND tt.value = 'GET' GROUP BY tt.value
SELECT r.status, AVG(t.value) FROM request r JOIN timer t ON t.request_id = r.id GROUP BY r.status ORDER BY r.status
SELECT COUNT(*) FROM request r RIGHT JOIN timer t ON t.request_id = r.id
SELECT r.id, t.hit_count FROM request r JOIN timer t ON t.request_id = r.id ORDER BY r.id, t.id LIMIT 5
SELECT g.value AS grp, o.value AS op, SUM(t.hit_count) FROM timer t JOIN timertag g ON g.timer_id = t.id JOIN tag gt ON gt.id = g.tag_id AND gt.name = 'group' JOIN timertag o ON o.timer_id = t.id JOIN tag ot ON ot.id = o.tag_id AND ot.name = 'op' GROUP BY grp, op ORDER BY grp, op
SELECT COUNT(*) FROM request JOIN (SELECT DISTINCT hostname AS h FROM request WHERE status = 404) x ON x.h = request.hostname
SELECT COUNT(*) FROM request r JOIN timer t USING (id)

-- Window functions
SELECT hostname, COUNT(*), RANK() OVER (ORDER BY COUNT(*) DESC) FROM request GROUP BY hostname ORDER BY hostname
SELECT status, COUNT(*) AS n, SUM(COUNT(*)) OVER () AS total FROM request GROUP BY status ORDER BY status
SELECT status, COUNT(*) * 100 / SUM(COUNT(*)) OVER () AS pct FROM request GROUP BY status ORDER BY status
SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM request ORDER BY id LIMIT 5
SELECT id, hostname, ROW_NUMBER() OVER (PARTITION BY hostname ORDER BY id) AS rn FROM request ORDER BY id LIMIT 6
SELECT script_name, n, DENSE_RANK() OVER (ORDER BY n DESC) FROM (SELECT script_name, COUNT(*) AS n FROM request GROUP BY script_name) x ORDER BY script_name
SELECT id, SUM(req_time) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM request ORDER BY id LIMIT 5
SELECT id, LAG(status) OVER (ORDER BY id), LEAD(status) OVER (ORDER BY id) FROM request ORDER BY id LIMIT 5
SELECT id, FIRST_VALUE(id) OVER (PARTITION BY hostname ORDER BY id) FROM request ORDER BY id LIMIT 5
SELECT hostname, AVG(req_time) OVER (PARTITION BY hostname) FROM request ORDER BY id LIMIT 4
SELECT id, NTILE(4) OVER (ORDER BY id) FROM request ORDER BY id LIMIT 8
SELECT id, COUNT(*) OVER (PARTITION BY status) FROM request ORDER BY id LIMIT 5
SELECT id, PERCENT_RANK() OVER (ORDER BY id) FROM request ORDER BY id LIMIT 3
SELECT id, CUME_DIST() OVER (ORDER BY id) FROM request ORDER BY id LIMIT 3

-- Grafana's MySQL data source, macros as Grafana expands them
SELECT cast(cast(UNIX_TIMESTAMP(FROM_UNIXTIME(timestamp))/(5) as signed)*5 as signed) AS time, COUNT(*) FROM request GROUP BY 1 ORDER BY 1
SELECT cast(cast(timestamp/(60) as signed)*60 as signed) AS time, COUNT(*) AS value FROM request GROUP BY 1 ORDER BY 1
SELECT cast(cast(timestamp/(60) as signed)*60 as signed) AS time, hostname AS metric, COUNT(*) AS value FROM request GROUP BY 1, 2 ORDER BY 1, 2
SELECT cast(cast(timestamp/(3600) as signed)*3600 as signed) AS time, AVG(req_time) FROM request GROUP BY 1 ORDER BY 1
SELECT floor(timestamp/(10))*10 AS time, COUNT(*) FROM request GROUP BY 1 ORDER BY 1
SELECT UNIX_TIMESTAMP(FROM_UNIXTIME(timestamp)) DIV 60 * 60 AS time, COUNT(*) FROM request GROUP BY 1 ORDER BY 1
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) BETWEEN FROM_UNIXTIME(1600000000) AND FROM_UNIXTIME(2000000000)
SELECT COUNT(*) FROM request WHERE timestamp >= 1600000000 AND timestamp <= 4000000000
SELECT COUNT(*) FROM request WHERE timestamp BETWEEN 1600000000 AND 4000000000
SELECT UNIX_TIMESTAMP(FROM_UNIXTIME(timestamp)) = timestamp FROM request ORDER BY id LIMIT 1
SELECT cast(cast(UNIX_TIMESTAMP(FROM_UNIXTIME(timestamp))/(300) as signed)*300 as signed) AS time, script_name AS metric, SUM(req_time) / COUNT(*) AS value FROM request GROUP BY 1, 2 ORDER BY 1, 2
SELECT 1 AS value, 'x' AS metric
SELECT cast(cast(1700000003/(5) as signed)*5 as signed)
SELECT cast(cast(1700000002/(5) as signed)*5 as signed)
SELECT cast(cast(1700000299/(300) as signed)*300 as signed)

-- The README's SQL examples
SELECT script_name, COUNT(*), AVG(req_time) FROM request GROUP BY script_name ORDER BY script_name
SELECT hostname, status, COUNT(*), SUM(req_time), SUM(doc_size), MAX(tags_cnt), SUM(timers_cnt) FROM request GROUP BY hostname, status ORDER BY hostname, status
SELECT tag.name, tt.value, COUNT(*), SUM(t.hit_count) FROM timer t JOIN request r ON t.request_id = r.id JOIN timertag tt ON tt.timer_id = t.id JOIN tag ON tt.tag_id = tag.id GROUP BY tag.name, tt.value ORDER BY 1, 2
SELECT DISTINCT tags FROM request ORDER BY 1
SELECT floor(timestamp/10)*10 AS time, COUNT(*) AS requests, SUM(status >= 500) AS errors FROM request WHERE timestamp >= 1600000000 AND timestamp <= 4000000000 GROUP BY 1 ORDER BY 1

-- Literals, NULLs, session
SELECT 1
SELECT 'x'
SELECT NULL
SELECT 1, 'two', 3.0, NULL
SELECT -1.5
SELECT 1e2
SELECT 0.000001 * 1000000
SELECT 123456789012 * 10
SELECT 9223372036854775807
SELECT TRUE, FALSE
SELECT 'a' 'b'
SELECT DATABASE()
SELECT COALESCE(NULL, 'fallback')
SELECT NULL IS NULL, 1 IS NOT NULL
SELECT 1 IS TRUE, 0 IS FALSE
SELECT LENGTH(NULL)
SELECT UPPER(NULL)
SELECT NULL + 1, NULL * 2, NULL / 3
SELECT SUM(x) FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT NULL) t
SELECT COUNT(x) FROM (SELECT 1 AS x UNION ALL SELECT NULL) t
SELECT AVG(x) FROM (SELECT 1 AS x UNION ALL SELECT 2) t
SELECT x FROM (SELECT 2 AS x UNION SELECT 1 UNION SELECT 2) t ORDER BY x
SELECT 1 UNION SELECT 2 ORDER BY 1 DESC
SELECT 'A' UNION SELECT 'a'
SELECT 'b' UNION ALL SELECT 'B' UNION SELECT 'a' UNION ALL SELECT 'A'
SELECT 'é' AS x UNION DISTINCT SELECT 'E ' UNION SELECT 'f' ORDER BY x
SELECT x FROM (SELECT 'Ä' AS x UNION SELECT 'a' UNION SELECT 'b') t ORDER BY x DESC
SELECT script_name FROM request UNION SELECT '/INDEX.PHP' UNION SELECT '/new.php' ORDER BY 1 LIMIT 3
SELECT COUNT(*) FROM (SELECT hostname FROM request UNION SELECT UPPER(hostname) FROM request) t
WITH c AS (SELECT 'A' AS v UNION SELECT 'a') SELECT v FROM c UNION SELECT 'z'
SELECT MAX(x) FROM (SELECT 'b' AS x UNION ALL SELECT 'A') t
SELECT x FROM (SELECT 'b' AS x UNION ALL SELECT 'A' UNION ALL SELECT 'c') t ORDER BY x
SELECT COUNT(*) FROM (SELECT 'a' AS x UNION ALL SELECT 'A') t GROUP BY x
SELECT DISTINCT x FROM (SELECT 'a' AS x UNION ALL SELECT 'A') t
SELECT 'abc' IN ('ABC', 'x')
SELECT 'b' BETWEEN 'A' AND 'C'
SELECT CONCAT(1.5, '')
SELECT CONCAT(7 / 2, '')
SELECT CONCAT(ROUND(2.5), '')
SELECT 7 / 2 > 3
SELECT 5 / 2 = 2.5
SELECT SUM(1) / 3
SELECT 2 * (1 + 2) / 3
SELECT ROUND(10 / 4)
SELECT FLOOR(7 / 2)
SELECT CEIL(7 / 2)
SELECT 1 / 8
SELECT 123 / 1000

-- The rewritten operators and functions over the tables' columns
SELECT COUNT(*) FROM request WHERE status % 100 = 0
SELECT id % 7 AS m, COUNT(*) FROM request GROUP BY m ORDER BY m
SELECT req_time % 1 < 1 FROM request ORDER BY id LIMIT 3
SELECT COUNT(*) FROM request WHERE req_time DIV 1 = 2
SELECT COUNT(*) FROM request WHERE (status = 200) XOR (hostname = 'h1')
SELECT COUNT(*) FROM request WHERE status >= 400 || req_time > 10
SELECT COUNT(*) FROM request WHERE NOT (status = 200 && schema = 'http')
SELECT COUNT(DISTINCT hostname, schema) FROM request
SELECT COUNT(DISTINCT server_name) FROM request
SELECT IFNULL(MAX(req_time), 0) FROM request WHERE status = 999
SELECT COALESCE(MAX(script_name), 'none') FROM request WHERE status = 999
SELECT IFNULL(NULLIF(status, 200), 'ok') AS s, COUNT(*) FROM request GROUP BY s ORDER BY s
SELECT CAST(req_time AS SIGNED), CAST(req_time AS DECIMAL(10,2)) FROM request ORDER BY id LIMIT 5
SELECT CAST(req_time * 1000 AS UNSIGNED) FROM request ORDER BY id LIMIT 5
SELECT ROUND(req_time, 1), TRUNCATE(req_time, 1) FROM request ORDER BY id LIMIT 5
SELECT FORMAT(SUM(doc_size), 2) FROM request
SELECT HEX(status), LPAD(status, 5, '0'), REPEAT('*', status DIV 100) FROM request ORDER BY id LIMIT 5
SELECT LENGTH(script_name), CHAR_LENGTH(script_name), UPPER(script_name) FROM request ORDER BY id LIMIT 4
SELECT SUBSTRING(script_name FROM 2 FOR 5), LOCATE('php', script_name) FROM request ORDER BY id LIMIT 4
SELECT REGEXP_REPLACE(script_name, '[.]php$', '') AS s, COUNT(*) FROM request GROUP BY s ORDER BY s
SELECT FIND_IN_SET(hostname, 'h0,h2'), COUNT(*) FROM request GROUP BY 1 ORDER BY 1
SELECT MD5(script_name) AS h, COUNT(*) FROM request GROUP BY h ORDER BY h
SELECT SHA2(hostname, 224) AS h, COUNT(*) FROM request GROUP BY h ORDER BY h
SELECT COUNT(*) FROM request WHERE script_name = '/admin/edit.php'
SELECT COUNT(*) FROM request WHERE hostname = 'H0' AND server_name LIKE 's1%'
SELECT COUNT(*) FROM request WHERE UPPER(hostname) = 'h2'
SELECT COUNT(*) FROM request WHERE script_name IN ('/INDEX.php', '/cron.PHP')
SELECT COUNT(*) FROM request WHERE STRCMP(script_name, '/INDEX.PHP') = 0
SELECT GROUP_CONCAT(DISTINCT UPPER(hostname) ORDER BY hostname DESC SEPARATOR ', ') FROM request
SELECT script_name, GROUP_CONCAT(DISTINCT schema ORDER BY schema) FROM request GROUP BY script_name ORDER BY script_name
SELECT hostname, GROUP_CONCAT(DISTINCT script_name, ':', status ORDER BY script_name, status SEPARATOR ' ') FROM request WHERE status <> 200 GROUP BY hostname ORDER BY hostname
SELECT DATE_FORMAT(FROM_UNIXTIME(timestamp) - INTERVAL 1 DAY, '%Y') = DATE_FORMAT(NOW() - INTERVAL 1 DAY, '%Y') FROM request LIMIT 1
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) >= NOW() - INTERVAL 1 DAY AND FROM_UNIXTIME(timestamp) <= NOW() + INTERVAL 1 MINUTE
SELECT TIMESTAMPDIFF(DAY, FROM_UNIXTIME(MIN(timestamp)), NOW()) FROM request
SELECT DATEDIFF(FROM_UNIXTIME(MAX(timestamp)), CURDATE()) FROM request
SELECT HOUR(FROM_UNIXTIME(timestamp)) = HOUR(FROM_UNIXTIME(timestamp) + INTERVAL 1 HOUR) FROM request LIMIT 1
SELECT SUM(status = 500) * 100 / COUNT(*) AS pct FROM request
SELECT 100 * SUM(status >= 400) / COUNT(*) AS err, 100 - 100 * SUM(status >= 400) / COUNT(*) AS ok FROM request
SELECT hostname, SUM(req_time) / SUM(req_count) FROM request GROUP BY hostname ORDER BY hostname
SELECT STDDEV(doc_size), VAR_SAMP(doc_size) FROM request
SELECT script_name, ROUND(STDDEV_SAMP(req_time), 3) FROM request GROUP BY script_name ORDER BY script_name
SELECT BIT_XOR(status) FROM request
SELECT SQRT(SUM(req_time * req_time) / COUNT(*)) FROM request
SELECT POW(AVG(req_time), 2), LN(SUM(req_time)), LOG10(COUNT(*)) FROM request
-- DECIMALs as a client sees them: the scale MySQL gives each result (sql::typing), in the
-- result and where it becomes text.
SELECT 7 / 2, 1 / 32, -7 / 2, 10 / 5
SELECT CONCAT(1 / 32, ''), LENGTH(7 / 2), UPPER(7 / 2), CONCAT_WS('-', 1.50 * 2, 'x')
SELECT ROUND(1.5, 3), TRUNCATE(7 / 3, 1), ROUND(7 / 2, -1), COALESCE(1, 2.50), CAST(1 AS DECIMAL(5, 2))
SELECT CASE WHEN status > 0 THEN 1 ELSE 2.5 END AS c FROM request ORDER BY id LIMIT 3
SELECT AVG(status), SUM(status) / COUNT(*), CONCAT(AVG(status), '') FROM request
SELECT script_name, ROUND(100 * SUM(status >= 500) / NULLIF(COUNT(*), 0), 2) AS errors FROM request GROUP BY script_name ORDER BY script_name
SELECT hostname, AVG(timers_cnt) AS t, CONCAT(ROUND(AVG(req_time) * 1000, 1), ' ms') AS ms FROM request GROUP BY hostname ORDER BY hostname
SELECT AVG(n), MAX(n) / 2 FROM (SELECT COUNT(*) AS n FROM request GROUP BY script_name) AS x
WITH s AS (SELECT status * 1.5 AS v FROM request) SELECT AVG(v), SUM(v) FROM s
SELECT 1 UNION ALL SELECT 2.25 UNION ALL SELECT 7 / 2
SELECT IF(COUNT(*) > 0, SUM(status) / COUNT(*), 0) AS mean FROM request
SELECT (SELECT AVG(status) FROM request) AS a, 100 / 7 / 3 AS b
-- MySQL's default collation (utf8mb4_general_ci, sql::collation): accents, every letter's case,
-- PAD SPACE, characters beyond the BMP; between literals, columns and derived tables' columns.
SELECT 'é' = 'e', 'Ä' = 'a', 'ß' = 's', 'Straße' = 'STRASE', 'ñ' < 'o', 'æ' > 'z'
SELECT 'Δ' = 'δ', 'ж' = 'Ж', 'ÿ' = 'Y', '😀' = '😁', 'a' < 'a\t', 'a\t' < 'a '
SELECT STRCMP('é', 'E'), STRCMP('a', 'a  '), STRCMP('', ' '), STRCMP('ß', 'ss')
SELECT COUNT(DISTINCT x) FROM (SELECT 'é' x UNION ALL SELECT 'E' UNION ALL SELECT 'e ' UNION ALL SELECT 'f') t
SELECT x FROM (SELECT 'éa' x UNION ALL SELECT 'eb' UNION ALL SELECT 'Ec' UNION ALL SELECT 'ea\t') t ORDER BY x
SELECT MIN(x), MAX(x) FROM (SELECT 'b' x UNION ALL SELECT 'Á' UNION ALL SELECT 'c ' UNION ALL SELECT 'C') t
SELECT UPPER(TRIM(x)) u, COUNT(*) FROM (SELECT 'b' x UNION ALL SELECT 'B ' UNION ALL SELECT 'a' UNION ALL SELECT 'À') t GROUP BY x ORDER BY u
SELECT COUNT(*) FROM request r JOIN (SELECT '/INDEX.PHP ' s UNION ALL SELECT '/ÍNDEX.php') t ON r.script_name = t.s
SELECT COUNT(*) FROM request WHERE script_name IN ('/índex.php', '/ADMIN/édit.php  ')
SELECT COUNT(*) FROM request a JOIN request b ON a.id = b.id AND a.server_name = CONCAT(b.server_name, '  ')
SELECT COUNT(*) FROM request WHERE server_name > 's1.EXAMPLE.com ' AND server_name < 'Ş9'
SELECT script_name, COUNT(*) FROM request WHERE script_name < '/Ápi' GROUP BY script_name ORDER BY script_name
SELECT COUNT(*) FROM request WHERE script_name BETWEEN '/ÀDMIN' AND '/ÁPI/USER.PHP'
SELECT FIELD('É', 'a', 'e '), FIND_IN_SET('Ü', 'a,u,b'), LOCATE('É', 'café'), INSTR('ÀBC', 'b')
SELECT GREATEST('a', 'Á', 'b '), LEAST('é', 'E', 'f'), GREATEST('Z', 'ÿ')
SELECT COUNT(DISTINCT x, y) FROM (SELECT 'é' x, 'a' y UNION ALL SELECT 'E ', 'A' UNION ALL SELECT 'e', 'b') t
SELECT 'é' LIKE 'e', 'Café' LIKE '%É', 'a ' LIKE 'a', 'user_1' LIKE 'user\_%', 'userx1' LIKE 'user\_%', '50%' LIKE '50\%', '500' LIKE '50\%'
SELECT 'a|%' LIKE 'a||%' ESCAPE '|', 'ab' LIKE 'a|b' ESCAPE '|', 'ß' LIKE 's', NULL LIKE 'a', 'a' LIKE NULL, 'abc' NOT LIKE 'A_C'
SELECT COUNT(*) FROM request WHERE script_name LIKE '/ÁDMIN/%' OR script_name LIKE '%\_%'
SELECT COUNT(*) FROM request WHERE script_name NOT LIKE '/%.PHP' AND hostname LIKE 'h_'

-- Session variables: a SET holds for the statements after it, until one sets it back
SET time_zone = '+05:00'
SELECT FROM_UNIXTIME(0), UNIX_TIMESTAMP('1970-01-01 05:00:00'), @@time_zone
SELECT FROM_UNIXTIME(86400, '%Y-%m-%d %H:%i'), DATE(FROM_UNIXTIME(86399)), UNIX_TIMESTAMP(FROM_UNIXTIME(1234567890))
SELECT TIMESTAMPDIFF(HOUR, UTC_TIMESTAMP() - INTERVAL 1 MINUTE, NOW()), DATEDIFF(CURDATE(), UTC_DATE()) IN (0, 1)
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) > FROM_UNIXTIME(0) AND UNIX_TIMESTAMP(FROM_UNIXTIME(timestamp)) = timestamp
=SET time_zone = 'Europe/Moscow'
=SET time_zone = '+13:01'
SET @@session.time_zone = '-12:59'
SELECT FROM_UNIXTIME(0), @@time_zone
SET time_zone = '+00:00'
SELECT FROM_UNIXTIME(0)
SET sql_mode = 'PIPES_AS_CONCAT'
SELECT 'a' || 'b', CONCAT('x', 1 || 2), @@sql_mode
SELECT UPPER('abc'), LPAD('7', 3, '0'), CAST(12 AS CHAR), SUBSTRING_INDEX('a.b', '.', 1), CONCAT_WS(',', 'a', 'b')
SET sql_mode = 'pipes_as_concat,TRADITIONAL'
SELECT @@sql_mode
=SET sql_mode = 'NO_SUCH_MODE'
SET SESSION sql_mode = DEFAULT
SELECT @@sql_mode, 1 || 0
-- ANSI_QUOTES: "…" names a column; NO_BACKSLASH_ESCAPES: a backslash is itself.
SET sql_mode = 'ANSI_QUOTES'
SELECT "script_name", 'it''s', "request"."status" FROM "request" WHERE "status" = 200 ORDER BY "id" LIMIT 2
SELECT @@sql_mode, 'a"b', '\'', `hostname` FROM request ORDER BY id LIMIT 1
SET sql_mode = 'ANSI'
SELECT @@sql_mode, "hostname" || '-' || "server_name" FROM request ORDER BY id LIMIT 1
SET sql_mode = 'NO_BACKSLASH_ESCAPES'
SELECT 'a\b', LENGTH('a\b'), 'c:\', "d\e", CONCAT('\n', 'x'), @@sql_mode
SET sql_mode = 'ANSI_QUOTES,NO_BACKSLASH_ESCAPES'
SELECT "status", 'x\' FROM request ORDER BY id LIMIT 1
SET SESSION sql_mode = DEFAULT
SELECT 'a\tb', "c\"d"
SET div_precision_increment = 2
SELECT 2/3, 7/2, AVG(1), 1/7
SELECT AVG(status), SUM(status) / COUNT(*) FROM request
SET div_precision_increment = DEFAULT
SELECT 2/3
=SET div_precision_increment = 'x'
SET group_concat_max_len = 4
SELECT GROUP_CONCAT('abc', 'def')
SET group_concat_max_len = DEFAULT
SELECT @@group_concat_max_len, LENGTH(GROUP_CONCAT(script_name)) > 4 FROM request
SET sql_select_limit = 2
SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3
SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 LIMIT 3
SELECT (SELECT COUNT(*) FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) x)
SELECT id FROM request ORDER BY id
SET sql_select_limit = DEFAULT
SELECT COUNT(*) FROM (SELECT id FROM request ORDER BY id LIMIT 5) t
SET NAMES utf8mb4 COLLATE utf8mb4_bin
SELECT 'a' = 'A', 'a' = 'a ', 'a' < 'B', 'a' IN ('A'), @@collation_connection
SELECT COUNT(*) FROM request WHERE script_name = '/ADMIN/EDIT.PHP'
SET NAMES utf8mb4
SELECT 'a' = 'A', @@collation_connection
=SET NAMES utf8mb4 COLLATE nope_ci
=SET NAMES latin9
SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci
SELECT 'a' = 'A', 'ß' = 'ss', '_' < 'a', 'a' = 'a ', 'a' < 'a\t', 'é' = 'e', 'Æ' = 'AE', '-' < '_', '中' > '一'
SELECT COLLATION('a'), CHARSET('a'), @@collation_connection, hostname FROM request ORDER BY id LIMIT 1
SELECT STRCMP('a', 'B'), STRCMP('ß', 'ss'), FIELD('ss', 'a', 'ß'), FIND_IN_SET('SS', 'a,ß'), LOCATE('ss', 'aßc'), INSTR('aßc', 'SS'), POSITION('ß' IN 'xssy')
SELECT GREATEST('a', '_', 'B'), LEAST('a', '_', 'B')
SELECT x FROM (SELECT 'b' x UNION SELECT '_' UNION SELECT 'A' UNION SELECT '-' UNION SELECT '1') t ORDER BY x
SELECT 'ß' LIKE 'ss', 'ß' LIKE 's%', 'Straße' LIKE '%SSE', '😀' LIKE '😁', '😀' = '😁', 'é' LIKE 'E'
SELECT GROUP_CONCAT(DISTINCT x COLLATE utf8mb4_unicode_ci ORDER BY x) FROM (SELECT 'ß' x UNION ALL SELECT 'ss' UNION ALL SELECT '_') t
SELECT COUNT(*) FROM request WHERE script_name = '/INDEX.php' OR script_name LIKE '/ADMIN%'
SET collation_connection = utf8mb4_general_ci
SELECT '_' < 'a', 'ß' = 'ss', @@collation_connection
SET NAMES 'utf8mb4' COLLATE 'utf8mb4_unicode_ci'
SELECT '_' < 'a', x FROM (SELECT 'y' x) t
SET NAMES utf8mb4
SELECT STRCMP('a' COLLATE utf8mb4_bin, 'A'), FIELD('a' COLLATE utf8mb4_bin, 'A', 'a'), FIND_IN_SET('a' COLLATE utf8mb4_bin, 'A,a'), LOCATE('a' COLLATE utf8mb4_bin, 'Aa'), INSTR('Aa', 'a' COLLATE utf8mb4_bin)
SELECT LOCATE('é', 'e'), LOCATE('e', 'é'), LOCATE('e', 'xéy'), INSTR('aéb', 'Eb'), LOCATE('b', 'aéb'), 'ß' COLLATE utf8mb4_unicode_ci = 'ss'
=SELECT 'a' COLLATE utf8mb4_0900_ai_ci
=SET NAMES utf8mb4 COLLATE utf8mb4_0900_ai_ci
SET NAMES utf8
SELECT 'x', hostname, CONCAT(hostname, 'é'), @@character_set_results, @@character_set_connection, @@collation_connection FROM request ORDER BY id LIMIT 1
SELECT 'é' = 'E', CHARSET('a'), COLLATION('a'), COLLATION(CONCAT('a', hostname)), CHARSET(UPPER(hostname)) FROM request ORDER BY id LIMIT 1
SELECT script_name, COUNT(*) FROM request GROUP BY script_name ORDER BY 2 DESC, 1 LIMIT 3
SET NAMES utf8 COLLATE utf8_unicode_ci
SELECT COLLATION('a'), '_' < 'a', 'ß' = 'ss', hostname FROM request ORDER BY id LIMIT 1
SET CHARACTER SET utf8
SELECT @@character_set_client, @@character_set_results, @@character_set_connection, @@collation_connection, CHARSET('a'), hostname FROM request ORDER BY id LIMIT 1
SET NAMES utf8mb4
SELECT CHARSET('a'), @@character_set_results, hostname FROM request ORDER BY id LIMIT 1
=SET lc_time_names = 'xx'
SET lc_time_names = 'en_US'
SELECT @@lc_time_names, DATE_FORMAT('2024-03-05', '%W %M')
=SET no_such_variable = 1
=SET @@session.no_such_variable = 1
=SET version = 'x'
=SET max_allowed_packet = 1
SET autocommit = OFF
SELECT @@autocommit
SET autocommit = 1, sql_safe_updates = 0, foreign_key_checks = 1
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED
SET @a = 1, @b = 'x'
SELECT @a, @b, @A, @a + 1, @a = 1
SELECT @c := 5
SELECT @c, @c * 2
SET @x = 'abc'
SELECT LENGTH(@x), @x = 'ABC', CONCAT(@x, 1)
SET @n = 10
SELECT COUNT(*) FROM request WHERE status = @n * 20
SELECT @i := 0
SELECT (@i := @i + 1) AS n FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) t
SET @s = (SELECT COUNT(*) FROM request WHERE status = 404)
SELECT @s = (SELECT COUNT(*) FROM request WHERE status = 404)
=SET @d = DEFAULT
SELECT id FROM request ORDER BY id LIMIT 3
SELECT FOUND_ROWS()

-- What tools send at connect
/*!40101 SET NAMES utf8mb4 */
/*!40101 SET @saved_cs_client = @@character_set_client */
SELECT 1 /*!50000 + 2 */
SELECT 1 FROM DUAL
SELECT id FROM request ORDER BY id LIMIT 2, 18446744073709551615
(SELECT 1) UNION ALL (SELECT 2)
(SELECT 1 ORDER BY 1 LIMIT 1) UNION (SELECT 3)
(SELECT 5)
(SELECT script_name FROM request ORDER BY id LIMIT 2) UNION ALL (SELECT hostname FROM request ORDER BY id DESC LIMIT 1)
SELECT 'a' COLLATE utf8mb4_bin = 'A', 'a' = 'A' COLLATE utf8mb4_general_ci, 'a ' COLLATE utf8mb4_bin = 'a'
SELECT COUNT(*) FROM request WHERE script_name COLLATE utf8mb4_bin = '/Admin/Edit.php'
SELECT COUNT(*) FROM request WHERE script_name = '/admin/edit.php' COLLATE utf8mb4_bin
SHOW CHARACTER SET LIKE 'utf8mb4'
SHOW VARIABLES WHERE Variable_name = 'time_zone'
SHOW VARIABLES WHERE Variable_name IN ('time_zone', 'sql_select_limit') AND Value <> ''
SHOW FULL TABLES WHERE Table_type = 'VIEW'
SHOW COLUMNS FROM request WHERE Field = 'status'
DESCRIBE request status
DESCRIBE request 'script%'
SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'pinba'
SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'pinba'
SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'pinba'
SELECT COUNT(*) FROM information_schema.EVENTS WHERE EVENT_SCHEMA = 'pinba'
SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'pinba'
SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'pinba'
SELECT COLUMN_NAME, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = 'request' AND DATA_TYPE NOT IN ('float', 'double') ORDER BY ORDINAL_POSITION
SET sql_mode = 'ONLY_FULL_GROUP_BY'
=SELECT script_name, status, COUNT(*) FROM request GROUP BY script_name
=SELECT script_name, COUNT(*) FROM request
=SELECT script_name, COUNT(*) FROM request GROUP BY UPPER(script_name)
SELECT UPPER(script_name), COUNT(*) FROM request GROUP BY script_name
SELECT UPPER(script_name) u, COUNT(*) FROM request GROUP BY UPPER(script_name)
SELECT script_name s, COUNT(*) FROM request GROUP BY s
SELECT script_name, COUNT(*) FROM request GROUP BY 1
SELECT script_name, COUNT(*) FROM request GROUP BY script_name HAVING MAX(status) > 0
SELECT 1, COUNT(*) FROM request
SET sql_mode = DEFAULT

-- Comparisons by MySQL's type rules (sql::typing::comparison): a number with a string as
-- doubles, a temporal with a string or a number as temporals, BINARY byte by byte; in IN,
-- BETWEEN, CASE and GREATEST/LEAST as in = and <.
SELECT 2 = '2', 10 > '9', 2 IN ('2', '3'), '10' IN (10, '9')
SELECT 'abc' = 0, ' 5' = 5, '5x' = 5, '.5' = 0.5, '1e2' = 100, '-2.5e1' < -20
SELECT 1.50 = '1.5', 2.5e0 > '10', NULL = '1', 3 <=> '3', NULL <=> '3'
SELECT 5 BETWEEN '3' AND '10', '5' BETWEEN 3 AND 10, 5 NOT BETWEEN '6' AND '10'
SELECT CASE 10 WHEN '10' THEN 'y' ELSE 'n' END, CASE '9' WHEN 10 THEN 'a' WHEN 9 THEN 'b' END
SELECT GREATEST(2, '10'), LEAST('10', 9), GREATEST('2', '10'), LEAST(2, 10)
SELECT COUNT(*) FROM request WHERE status = '200'
SELECT COUNT(*) FROM request WHERE status DIV 100 = '5'
SELECT COUNT(*) FROM request WHERE status DIV 100 IN ('4', '5')
SELECT COUNT(*) FROM request WHERE status + 0 > '300'
SELECT COUNT(*) FROM request WHERE req_time * 1000 > '100'
SELECT COUNT(*) FROM request WHERE status BETWEEN '300' AND '499'
SELECT script_name, COUNT(*) AS n FROM request GROUP BY script_name HAVING COUNT(*) > '90' ORDER BY script_name
SELECT script_name FROM request GROUP BY script_name HAVING MAX(status) = '503' ORDER BY script_name
SELECT script_name FROM request GROUP BY script_name HAVING SUM(status) >= '1000' ORDER BY script_name
SELECT COUNT(*) FROM request WHERE LENGTH(script_name) > '10'
SELECT status, CASE status DIV 100 WHEN '2' THEN 'ok' WHEN '5' THEN 'error' ELSE 'other' END AS k FROM request GROUP BY status ORDER BY status
SELECT FROM_UNIXTIME(1700000000) >= '2023-11-14T22:13:20', FROM_UNIXTIME(1700000000) <= '2023-11-14 22:13:2'
SELECT FROM_UNIXTIME(1700000000) > 20231114221319, FROM_UNIXTIME(1700000000) = 20231114221320
SELECT DATE(FROM_UNIXTIME(1700000000)) = 20231114, DATE(FROM_UNIXTIME(1700000000)) = '2023-11-14 00:00:00'
SELECT DATE('2026-11-28 10:00') = '2026-11-28 10:00:00', DATE('2026-11-28') < '2026-11-28 00:00:01'
SELECT FROM_UNIXTIME(1700000000) BETWEEN '2023-11-14' AND '2023-11-15', FROM_UNIXTIME(1700000000) IN ('2023-11-14 22:13:20', 1)
SELECT CAST('2023-11-14' AS DATE) = FROM_UNIXTIME(1700000000 - 80000), TIME('10:00:00') = '10:00'
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) >= (SELECT REPLACE(FROM_UNIXTIME(MIN(timestamp)), ' ', 'T') FROM request)
SELECT COUNT(*) FROM request WHERE DATE(FROM_UNIXTIME(timestamp)) = (SELECT DATE_FORMAT(FROM_UNIXTIME(MIN(timestamp)), '%Y%m%d') + 0 FROM request)
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) > (SELECT DATE_FORMAT(FROM_UNIXTIME(MIN(timestamp)), '%Y%m%d%H%i%s') + 0 FROM request)
SELECT BINARY 'a' = 'A', BINARY 'a' = 'a', 'a' = BINARY 'A', BINARY 'ab' < 'aC', BINARY 'a' IN ('A', 'b')
SELECT COUNT(*) FROM request WHERE BINARY script_name = '/index.php'
SELECT COUNT(*) FROM request WHERE BINARY script_name = '/INDEX.php'
SELECT COUNT(*) FROM request WHERE script_name = '/INDEX.php'
SELECT COUNT(*) FROM request WHERE BINARY hostname IN ('s1.example.com', 'S1.example.com')
-- IN compares its value with each item by that pair's types (the items' types differ); a value
-- that reads as no datetime compares with a temporal as the zero one.
SELECT '' IN ('a', 1e0), 'a' IN ('A', 0), 2 IN ('2', 3), '1x' IN (1, 'y'), NULL IN (1, 'a'), 5 NOT IN ('5', 'x')
SELECT COUNT(*) FROM request WHERE '' IN (DATE(FROM_UNIXTIME(timestamp)), 0)
SELECT CAST('2023-12-31' AS DATE) >= '', '' > CAST('2023-12-31' AS DATE), 1 <> CAST('2023-12-31' AS DATE), CAST('2023-12-31' AS DATE) IN (5, 5)
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) <> '' AND NOT (FROM_UNIXTIME(timestamp) < 2.5)
SELECT '1' + 1, '2' * '3', '7' / 2, 'x' + 1, '3' DIV 2
SELECT SUBSTRING_INDEX(NULL, '', 5), SUBSTRING_INDEX('a.b', NULL, 1), SUBSTRING_INDEX('a.b', '.', NULL)
SELECT status, COUNT(*) * 100 / SUM(COUNT(*)) OVER () AS pct, SUM(COUNT(*)) OVER (ORDER BY status) AS running FROM request GROUP BY status ORDER BY status
-- Temporal literals are values of their type; one that is no date is error 1525.
SELECT DATE '2024-03-05', TIMESTAMP '2024-03-05 12:34:56', DATE '2024-3-5', DATE '2024-03-05' + INTERVAL 1 DAY, TIMESTAMP '2024-03-05 12:34:56' + INTERVAL 1 SECOND
SELECT DATE '2024-03-05' = '2024-03-05', DATE '2024-03-05' < TIMESTAMP '2024-03-05 00:00:01', (DATE '1970-01-01' - INTERVAL 0 QUARTER) <=> TIMESTAMP '1970-01-01 00:00:00', 'a' >= DATE_SUB(DATE '2024-03-05', INTERVAL 2 DAY)
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) >= TIMESTAMP '2000-01-01 00:00:00'
= SELECT DATE '2024-02-30'
-- TRUE and FALSE are the numbers 1 and 0, also beside <=>.
SELECT (1000 <=> TRUE), 2 = TRUE, FALSE + 1, 1 <=> TRUE
-- HAVING without GROUP BY or an aggregate filters rows as WHERE does.
SELECT status FROM request HAVING status >= 500 ORDER BY status
SELECT script_name AS s FROM request WHERE status = 200 HAVING s LIKE '%index%' ORDER BY 1 LIMIT 5
-- A DOUBLE rounds half to even; an exact value half away from zero.
SELECT ROUND(-2.5e0, 0), ROUND(0.25e0, 1), ROUND(2.5e0), ROUND(25e0, -1), FORMAT(0.25e0, 1), ROUND(2.5), ROUND(-2.5), CAST(2.5e0 AS SIGNED), CAST(0.5e0 AS UNSIGNED), CAST(-1.5e0 AS UNSIGNED)
SELECT ROUND(req_time * 10) AS b, COUNT(*) FROM request GROUP BY b ORDER BY b
-- A string and a number merged are a string, the number written as MySQL writes it.
SELECT CASE WHEN 0 THEN '' ELSE 0.0 END, IF(1, 1.50, 'a'), COALESCE(NULL, 2, 'x'), IFNULL(1e0, 'a'), IF(1, 1e20, ''), CASE 1 WHEN 1 THEN 2 ELSE 'b' END
SELECT CAST(1e0 AS CHAR), CAST(1e20 AS CHAR), CAST(1.50 AS CHAR), CONCAT(1e15, ''), CONCAT(0.1e0 + 0.2e0), CONCAT(1e-16)
-- NULLIF and FIELD compare as the other comparisons do.
SELECT NULLIF('', 0), NULLIF('abc', 0e0), NULLIF(2, '2'), FIELD('', 0e0, 1e0), FIELD('b', 'a', 'b'), FIELD(2, '1', '2')
-- A temporal read as a number is its digits; rounded, a DATETIME stays itself.
SELECT DATE('2024-03-05') + 0, FROM_UNIXTIME(0) + 0, DATE '2024-03-05' * 2, -DATE '2024-03-05', DATE '2024-03-05' - DATE '2024-03-01', DATE '2024-03-05' + 0.5
SELECT CAST(TIMESTAMP '2024-03-05 01:02:03' AS DECIMAL(20, 2)), CAST(DATE '2024-03-05' AS SIGNED), DATE '2024-03-05' DIV 100, MOD(DATE '2024-03-05', 7), TIMESTAMP '2024-03-05 01:02:03' / 10, DATE '2024-03-05' & 255
SELECT SUM(DATE(FROM_UNIXTIME(timestamp))), AVG(FROM_UNIXTIME(timestamp)), BIT_OR(DATE(FROM_UNIXTIME(1))) FROM request
SELECT FLOOR(DATE '2024-03-05'), ROUND(TIMESTAMP '2024-03-05 01:02:03'), ROUND(TIMESTAMP '2024-03-05 01:02:03', NULL), FIELD(TIMESTAMP '2026-11-28 16:44:00', DATE '2026-11-28', 1e0)
SELECT MIN(ADDDATE(DATE '2024-03-05', 10)) + 1 FROM request
-- A temporal and a number merged are a string; a DATE and a DATETIME a DATETIME.
SELECT IFNULL(1e0, TIMESTAMP '2024-03-05 12:34:56'), IF(1, DATE '2026-11-28', TIMESTAMP '2026-11-28 16:44:00'), COALESCE(NULL, DATE '2024-01-01', 1), CASE WHEN 1 THEN 1 ELSE TIMESTAMP '9999-12-31 23:59:59' END
-- A DECIMAL cast clips to its digits; arithmetic on NULL is a DOUBLE.
SELECT CAST(2147483647 AS DECIMAL(10, 2)), CAST(-2147483648 AS DECIMAL(10, 2)), CAST(20240305010203 AS DECIMAL), CAST(99999999.995 AS DECIMAL(10, 2))
SELECT '' BETWEEN 2.5 AND TRUNCATE(NULL, 3), IFNULL(NULL + 1, 1.50), '' < ROUND(NULL)
SELECT TRUNCATE(ABS(TIMESTAMP '2024-03-05 12:34:56'), 5), ROUND(-DATE '2024-03-05', 2), IFNULL(MAX(DATE_SUB(NULL, INTERVAL 1 SECOND)), 0) FROM request
SELECT TRUNCATE(CAST(3 AS DECIMAL), 2), ROUND(-CAST(3 AS DECIMAL(5)), 1), ROUND(15, 2), CAST(7 AS DECIMAL) / 2
SELECT IFNULL(MAX(TIMESTAMPADD(DAY, NULL, NULL)), 0), IFNULL(TIMESTAMPADD(HOUR, 1, '2024-01-01'), 1) FROM request
SELECT TIMESTAMPADD(SECOND, NULL, DATE '2024-03-05'), TIMESTAMPADD(WEEK, 1, DATE '2024-02-29'), MAX(TIMESTAMPADD(QUARTER, 5, DATE '1970-01-01')) FROM request
SELECT DATE_SUB('0001-01-01', INTERVAL 1 DAY), DATE_SUB('0001-01-01', INTERVAL 1 MONTH), DATE_SUB('0001-03-31', INTERVAL 1 YEAR), DATE_SUB(DATE '0001-03-31', INTERVAL 13 MONTH), DATE_SUB(FROM_DAYS(366), INTERVAL 3 QUARTER), DATE_ADD('0000-02-28', INTERVAL 1 MONTH)
SELECT COALESCE(1.5, IF(NULL, NULL, NULL)), COALESCE(1.5, IFNULL(NULL, NULL)), COALESCE(1.5, CASE WHEN 1 THEN NULL END), COALESCE(1.5, COALESCE(NULL)), COALESCE(2, NULLIF(NULL, 1)), COALESCE(status) FROM request
SELECT LOCATE('', 'ab', 3), LOCATE('', 'ab', 2), LOCATE('', 'abc', 3), LOCATE('', '', 1), LOCATE('', 'ab', 4), LOCATE('', 'ab'), INSTR('ab', ''), LOCATE('', '')
SELECT REGEXP_REPLACE('', '^$', 'a'), REGEXP_REPLACE('', 'x*', 'a'), REGEXP_REPLACE('b', '^$', 'a'), REGEXP_REPLACE('b', '^', 'a'), REGEXP_REPLACE('abbc', 'b*', '-'), REGEXP_REPLACE('bbc', 'b*', '-'), REGEXP_REPLACE('abc', '$', '-')
SELECT IFNULL(MAX(SUBDATE(NULL, 2)), 0), IFNULL(ADDDATE(NULL, 2), 1) FROM request
SELECT DISTINCT LEFT(server_name, 2) FROM request ORDER BY 1
SELECT CONCAT(server_name, script_name) k FROM request GROUP BY k ORDER BY k LIMIT 3
SELECT LTRIM(value), 1e0 FROM timertag GROUP BY 1 ORDER BY 1, 2
SELECT REPEAT(server_name, 2) FROM request ORDER BY 1 LIMIT 2
SELECT GROUP_CONCAT(TRIM(server_name) ORDER BY TRIM(server_name), id SEPARATOR ',') FROM request WHERE id <= 20
SELECT GROUP_CONCAT(DISTINCT IFNULL(value, 1.5) ORDER BY IFNULL(value, 1.5)) FROM timertag
SELECT MIN(LOWER(server_name)), MAX(UPPER(server_name)), COUNT(DISTINCT LOWER(server_name)) FROM request
SELECT LOWER(script_name) = UPPER(script_name), TRIM(server_name) < LOWER('S1'), LEFT(script_name, 3) IN ('/AP', '/cr') FROM request WHERE id <= 20
SELECT GROUP_CONCAT(LPAD('', 2, script_name) ORDER BY LPAD('', 2, script_name) SEPARATOR ',') FROM request WHERE id <= 30
SELECT GROUP_CONCAT(v ORDER BY LEFT(v, 1)), GROUP_CONCAT(v ORDER BY LEFT(v, 1) DESC) FROM (SELECT 'a1' v UNION ALL SELECT 'A2' UNION ALL SELECT 'a3' UNION ALL SELECT 'b' UNION ALL SELECT 'a4') t
SELECT CAST((0.5e0 - 1.005) AS DECIMAL(10, 2)), CAST(0.125e0 AS DECIMAL(10, 2)), CAST(' 9.995' AS DECIMAL(10, 2)), CAST(0.7 + 0.105 AS DECIMAL(10, 2))
-- Unsigned 64-bit integers (BIGINT UNSIGNED): held as their 64 bits, read by MySQL's rules.
SELECT 18446744073709551615, 9223372036854775808, CAST(-1 AS UNSIGNED), CAST(-1 AS UNSIGNED) + 0, ~0 + 0, (~0) DIV 3
SELECT BIT_OR(18446744073709551615), BIT_AND(status), BIT_OR(status), BIT_XOR(status) FROM request
SELECT (1e3 - (~1)), UPPER(9223372036854775808), CONCAT(~0, '')
SELECT STDDEV_POP((~status)) FROM request
SELECT 1.5 FROM request WHERE (1.5 BETWEEN (~5) AND CHAR_LENGTH(`schema`))
=SELECT CAST(-1 AS UNSIGNED) + 1
=SELECT CAST(1 AS UNSIGNED) - 2
=SELECT 0x01 - 2
=SELECT -7 DIV CAST(2 AS UNSIGNED)
SELECT ~0 > 5, ~0 = 18446744073709551614, ~0 = -1, (~0) >> 1, -CAST(1 AS UNSIGNED), CAST(~0 AS SIGNED)
SELECT BIT_AND(status) FROM request WHERE 0
SELECT BIT_OR(NULL) FROM request
SELECT BIT_XOR(1) FROM request HAVING 0
SELECT -7 ^ 5, ~1 ^ 1, -1 ^ 1
SELECT MOD(18446744073709551615, 10), 18446744073709551615 % 10, CAST(5 AS UNSIGNED) % -3, -5 % CAST(3 AS UNSIGNED), -1 DIV CAST(2 AS UNSIGNED)
SELECT MAX(~status), MIN(~status), MAX(status) FROM request
SELECT GREATEST(~0, ~1), IF(1, ~0, NULL), IFNULL(~0, 1), COALESCE(NULL, ~0), IF(0, 1, 9223372036854775808)
SELECT FLOOR(~0), ABS(~0), ROUND(~0), TRUNCATE(~0, 2)
SELECT -9223372036854775808, 1 + -9223372036854775808
SELECT DATE '2024-03-05' >> 8, 5 >> -1, 1 << 63, 5 << 64
SELECT ~2.5e0, ~2.5, ~'2.5', '1e2' | 0, -1.5e0 | 0, 1e30 | 0, -1e30 | 0
SELECT BIT_OR(2.5), BIT_OR(2.5e0), BIT_OR('2.5'), BIT_OR('1e2'), BIT_OR(-2.5), BIT_OR(1e30)
SELECT ~status IN (18446744073709551415, 1), ~status BETWEEN 18446744073709551000 AND ~0, status > ~0 FROM request ORDER BY id LIMIT 3
SELECT ROUND(1.5e0, 2), PI() * 2, PI() + 0, TRUNCATE(2.5e0, 3), ROUND(AVG(req_time), 2), STDDEV(status), NULL + 1, ROUND(1e0 / 3, 20), ROUND(-0.001e0, 2) FROM request
SELECT CONCAT(ROUND(1.5e0, 2)), CONCAT(PI() * 2), CONCAT(TRUNCATE(1.5e0, 3)), CONCAT_WS(',', PI(), 1e0), LPAD(PI(), 12, '0') FROM request LIMIT 1
SELECT SUM(ROUND(req_time, 1)), AVG(ROUND(req_time, 1)), MAX(ROUND(req_time, 1)), STDDEV(ROUND(req_time, 2)), VARIANCE(TRUNCATE(req_time, 10)) FROM request
SELECT IFNULL(NULL + 1, 1.50), ROUND(req_time, 2) / 3, ROUND(req_time, -1), ROUND(req_time, 0) * 2, ROUND(1e22, 2), ROUND(0.1e0, 25) FROM request ORDER BY id LIMIT 3
SELECT id, PERCENT_RANK() OVER (ORDER BY id), CUME_DIST() OVER (ORDER BY id) FROM request ORDER BY id LIMIT 3
SELECT STDDEV_POP(ROUND(1e0, 0)), STDDEV_POP(TRUNCATE(1e0, -2)) FROM tag
SELECT 1.5 + NULL, NULL - 2.25, NULL * 1e0, GREATEST(2.5, NULL), COALESCE(NULL, 2.5 + NULL), 7 / NULL, NULL / 1.25
SELECT ROUND(2.5e0, -2), TRUNCATE(req_time, 0), ROUND(req_time, 0) FROM request ORDER BY id LIMIT 2
SELECT EXTRACT(MINUTE FROM '10:20:30'), EXTRACT(SECOND FROM '10:20:30'), EXTRACT(MICROSECOND FROM '10:20:30.5')
SELECT DATE_FORMAT('2024-03-05', '%a %b %W %M %w %%'), TIME_FORMAT('10:20:30', '%k:%i %r %T %f'), DATE_FORMAT(FROM_UNIXTIME(timestamp), script_name) FROM request ORDER BY id LIMIT 2
SELECT COALESCE(script_name, 'none'), IFNULL(status, 0), IFNULL(NULL, status), COALESCE(NULL, req_time, 1) FROM request ORDER BY id LIMIT 2
SELECT hostname, MAX(status), SUM(doc_size), COUNT(*) + 1, MIN(script_name), 'x', UPPER(hostname) FROM request GROUP BY hostname ORDER BY hostname
SELECT DISTINCT status, status + 1, LOWER(hostname) FROM request ORDER BY status, 3
SELECT 2 > ALL (SELECT status FROM request), NULL > ANY (SELECT 1), status < ALL (SELECT 1) FROM request ORDER BY id LIMIT 2

-- Exact DECIMALs (issue 80: `src/sql/decimal.rs`), with the generator's reduced statements
SELECT 0.1 + 0.2 = 0.3, 0.1 + 0.2, 1.5 * -2, -(0.5), 2.5 % 0.1, -7.5 % 2, MOD(7.25, 2)
SELECT ~0 + 0.5, -18446744073709551615, 0.2 + 9223372036854775807, 18446744073709551615 = 18446744073709551615.0
SELECT 1/3, 2/3, 1/3*3, (1/3)*3 = 1, 1/3 = 0.3333, 1/3 = 0.333333333, (1/3) - 0.333333333, 1.5 / 0.7, 1.00000000 / 3, (1/2)/3
SELECT 12345678901234567890.123456789 * 2, 0.30000000000000001 + 0, 0.30000000000000001 = 0.3
SELECT 1 FROM request WHERE (1 / timestamp)
SELECT 18446744073709551615 DIV 1e3, 7.5 DIV 2, -7.5 DIV 2e0
=SELECT 9223372036854775807 DIV 0.5e0
SELECT SUM(18446744073709551615), AVG(9223372036854775808) FROM request
SELECT AVG((-2147483648 << 5)) FROM timertag
SELECT AVG(9223372036854775807) FROM request
=SELECT 9223372036854775808 DIV -2.5e0
SELECT AVG(status), AVG(DISTINCT status), AVG(status * 1.5), SUM(status * 0.1) FROM request
SELECT CEIL(COALESCE(9223372036854775808, 0)), FLOOR(-18446744073709551615.5), ROUND(GREATEST(18446744073709551615, 1), 2)
SELECT FORMAT(9223372036854775807, 5), FORMAT(-1234.565, 2)
SELECT CAST(2.675 AS DECIMAL(10,2)), ROUND(2.675, 2), TRUNCATE(-2.79, 1), CAST(5 AS DECIMAL(2,2))
SELECT 1.5 IN (1.50, 2), 3 BETWEEN 2.5 AND 3.5, 0.1 + 0.2 <=> 0.3
SELECT status / 7 AS x, COUNT(*) FROM request GROUP BY x ORDER BY x

-- `SELECT *` and `t.*` send each table's columns as declared; a derived table MariaDB
-- materializes (grouped, LIMIT, DISTINCT, no table, UNION) sends its temporary table's fields.
SELECT * FROM request ORDER BY id LIMIT 3
SELECT r.*, 1 AS one FROM request r ORDER BY r.id LIMIT 2
SELECT * FROM timer ORDER BY id LIMIT 2
SELECT * FROM (SELECT status, COUNT(*) AS n FROM request GROUP BY status) t ORDER BY n DESC, status
SELECT t.* FROM (SELECT status, hostname, req_time FROM request WHERE status > 0) t ORDER BY 1, 2, 3 LIMIT 3
WITH x AS (SELECT status, req_time FROM request) SELECT * FROM x ORDER BY 1, 2 LIMIT 2
SELECT * FROM (SELECT NULL AS c1, '' AS c2, 'ab' AS c3, 1 AS c4, 1.5 AS c5, 1e0 AS c6, hostname AS c7, status AS c9 FROM request GROUP BY 1, 7, 8) t ORDER BY c7, c9
SELECT * FROM (SELECT NULL AS c1, '' AS c2, 'x' AS c3 FROM request LIMIT 2) t
SELECT * FROM (SELECT DISTINCT NULL AS c1, '' AS c2, hostname FROM request) t ORDER BY hostname
SELECT c1, c2 FROM (SELECT NULL AS c1, '' AS c2) t
SELECT * FROM (SELECT NULL AS c1, '' AS c2, 'x' AS c3 FROM request WHERE status > 0) t LIMIT 1
SELECT * FROM (SELECT 1 AS a, '' AS b, 'x' AS d FROM request UNION ALL SELECT 2, 'yy', 'z') t ORDER BY a LIMIT 2
WITH x AS (SELECT 1 AS a, '' AS b, NULL AS c, COUNT(*) AS n FROM request) SELECT * FROM x
SELECT t.* FROM (SELECT NULL AS c1, 1 AS c2 FROM request GROUP BY 1) t
-- A quotient grouped (or DISTINCT) in a temporary table is grouped at its scale.
SELECT (1 / timer_id), 1 FROM timertag GROUP BY 1
SELECT DISTINCT 1 / timer_id AS q FROM timertag ORDER BY q
SELECT COUNT(*) FROM timertag GROUP BY 1 / timer_id ORDER BY 1
SELECT status / 7 AS x, COUNT(*) FROM request GROUP BY x ORDER BY x
-- A negative DOUBLE of fixed decimals whose digits round to zero keeps its sign; zero has none.
SELECT (-9223372036854775808 % ROUND(0.1e0, 1)), -ROUND(0e0, 2), ROUND(-1e0, 2) % ROUND(0.5e0, 1)
-- REGEXP_SUBSTR is as long as the string it reads.
SELECT REGEXP_SUBSTR(REGEXP_REPLACE('', '^/', 1), '^/'), REGEXP_SUBSTR('abc', 'b')
SELECT REGEXP_SUBSTR(script_name, 'b'), TRIM(BOTH 'x' FROM hostname), TRIM(LEADING 'a' FROM 'abc') FROM request ORDER BY id LIMIT 1
-- A string's digits are never fixed: a variance or an average of a string column is a DOUBLE of 31 decimals.
SELECT STD(hostname), VARIANCE(script_name), AVG(hostname), SUM(server_name) FROM request
SELECT RAND(1), RAND(NULL), RAND(-1), RAND('a')
SELECT RAND(3) FROM request ORDER BY id LIMIT 3
SELECT id, RAND(status) FROM request ORDER BY id LIMIT 3
SELECT COUNT(*) FROM (SELECT id FROM request ORDER BY RAND() LIMIT 5) t
SELECT RAND() < 1, RAND() >= 0
SELECT DEGREES(1), DEGREES(NULL), DEGREES('a'), DEGREES(-2.5), RADIANS(180), RADIANS(NULL), RADIANS('x')
SELECT COT(1), COT(NULL), COT(-1.5)
=SELECT COT(0)
SELECT CHAR_LENGTH(UUID()), UUID() LIKE '________-____-1___-____-____________', UUID() = UUID()
SELECT CRC32('abc'), CRC32(NULL), CRC32(''), CRC32(-1), CRC32(1.5)
SELECT CONV('a', 16, 2), CONV(-1, 10, 16), CONV('-ff', -16, -10), CONV('zz', 36, 10), CONV(NULL, 10, 2), CONV('', 10, 2), CONV(10, 1, 2), CONV(10, 10, 37)
SELECT CONV(2.7, 10, 2), CONV('18446744073709551616', 10, 16), CONV('-9223372036854775809', -10, -10), CONV(' 12', 10, 10), CONV('12x', 10, 10), CONV(255, 10, -16)
SELECT BIN(12), BIN(-1), BIN(NULL), BIN(0), BIN(2.7), BIN('x'), OCT(8), OCT(-8), OCT(NULL), OCT(1e0), OCT(-1.5)
SELECT ORD('a'), ORD('é'), ORD(''), ORD(NULL), ORD(5), ORD('😀')
SELECT BIT_COUNT(7), BIT_COUNT(-1), BIT_COUNT(NULL), BIT_COUNT('3'), BIT_COUNT(2.5)
SELECT TO_SECONDS('2024-03-05 12:34:56'), TO_SECONDS(NULL), TO_SECONDS('x'), TO_SECONDS(20240305), TO_SECONDS(DATE '2024-03-05'), TO_SECONDS('0000-00-00')
SELECT INET_ATON('10.0.5.9'), INET_ATON('127.1'), INET_ATON('1.2.3.256'), INET_ATON(NULL), INET_ATON(''), INET_ATON('1.2.3.'), INET_ATON('1.2.3.4.5')
SELECT INET_NTOA(167773449), INET_NTOA(-1), INET_NTOA(NULL), INET_NTOA(4294967296), INET_NTOA('abc'), INET_NTOA(1.5)
SELECT IS_IPV4('10.0.0.1'), IS_IPV4('10.0.0'), IS_IPV4(NULL), IS_IPV4('01.2.3.4'), IS_IPV4(''), IS_IPV4(' 1.2.3.4')
SELECT IS_IPV6('::1'), IS_IPV6('1.2.3.4'), IS_IPV6(NULL), IS_IPV6('::ffff:1.2.3.4'), IS_IPV6('1::2::3'), IS_IPV6('')
SELECT TO_BASE64('abc'), TO_BASE64(''), TO_BASE64(NULL), TO_BASE64(12), TO_BASE64(REPEAT('x', 60))
SELECT FROM_BASE64('YWJj'), FROM_BASE64(''), FROM_BASE64(NULL), FROM_BASE64('!!'), FROM_BASE64('YW Jj'), FROM_BASE64('YQ=='), FROM_BASE64('YQ'), FROM_BASE64(TO_BASE64('héllo'))
SELECT MAKE_SET(5, 'a', 'b', 'c'), MAKE_SET(NULL, 'a'), MAKE_SET(3, NULL, 'b'), MAKE_SET(0, 'a'), MAKE_SET(-1, 'a', 'b')
SELECT EXPORT_SET(5, 'Y', 'N', ',', 4), EXPORT_SET(5, 'Y', 'N'), EXPORT_SET(NULL, 'Y', 'N'), EXPORT_SET(5, 'Y', 'N', '', 70), EXPORT_SET(5, 'Y', 'N', '-', -1)
SELECT JSON_UNQUOTE('"abc"'), JSON_UNQUOTE('abc'), JSON_UNQUOTE(NULL), JSON_UNQUOTE('"a\\nb"'), JSON_UNQUOTE('"\\u00e9"'), JSON_UNQUOTE('"abc'), JSON_UNQUOTE(1)
SELECT CHARSET('a'), CHARSET(1), CHARSET(NULL), CHARSET(script_name), CHARSET(BINARY 'a'), CHARSET(NOW()) FROM request LIMIT 1
SELECT COLLATION('a'), COLLATION(1), COLLATION(NULL), COLLATION(script_name), COLLATION('a' COLLATE utf8mb4_bin) FROM request LIMIT 1
SELECT COERCIBILITY('a'), COERCIBILITY(1), COERCIBILITY(NULL), COERCIBILITY(script_name), COERCIBILITY(USER()), COERCIBILITY('a' COLLATE utf8mb4_bin), COERCIBILITY(CAST(1 AS CHAR)), COERCIBILITY(CONCAT(script_name, 'a')) FROM request LIMIT 1
SELECT SLEEP(0), SLEEP(NULL), SLEEP(0.01), SLEEP(-1)
SELECT ROW_COUNT()
SELECT NVL(NULL, 1), NVL(2, 'a'), NVL(NULL, NULL), NVL(status, 0) FROM request LIMIT 1
SELECT EXTRACT(YEAR_MONTH FROM '2024-03-05 12:34:56'), EXTRACT(DAY_HOUR FROM '2024-03-05 12:34:56'), EXTRACT(HOUR_MINUTE FROM NULL), EXTRACT(DAY_MINUTE FROM '2024-03-05 12:34:56'), EXTRACT(DAY_SECOND FROM '2024-03-05 12:34:56'), EXTRACT(HOUR_SECOND FROM '2024-03-05 12:34:56'), EXTRACT(MINUTE_SECOND FROM '2024-03-05 12:34:56')
SELECT EXTRACT(DAY_MICROSECOND FROM '2024-03-05 12:34:56.5'), EXTRACT(HOUR_MICROSECOND FROM '2024-03-05 12:34:56.5'), EXTRACT(MINUTE_MICROSECOND FROM '2024-03-05 12:34:56.5'), EXTRACT(SECOND_MICROSECOND FROM '2024-03-05 12:34:56.5')
SELECT GET_FORMAT(DATE, 'EUR'), GET_FORMAT(DATETIME, 'ISO'), GET_FORMAT(TIME, 'USA'), GET_FORMAT(DATE, 'x'), GET_FORMAT(TIMESTAMP, 'JIS'), GET_FORMAT(DATE, NULL)
SELECT INTERVAL(23, 1, 15, 17, 30, 44, 200), INTERVAL(10, 1, 10, 100), INTERVAL(NULL, 1, 2), INTERVAL(0, 1), INTERVAL(1, NULL, 2), INTERVAL(1.5, 1, 2)
SELECT INTERVAL(status, 100, 300, 500), CONV(status, 10, 16), BIN(status), HEX(CHAR(status)), CRC32(script_name), TO_BASE64(script_name) FROM request ORDER BY id LIMIT 2
SELECT CHAR(65), CHAR(65, 66), CHAR(256), CHAR(NULL), CHAR(65, NULL), CHAR('66'), CHAR(65) = 'A'
SELECT UNHEX('41'), UNHEX('4'), UNHEX(NULL), UNHEX('zz'), LENGTH(UNHEX('4142')), HEX(UNHEX('4142'))
SELECT JSON_EXTRACT('{"a": 1}', '$.a'), JSON_EXTRACT('{"a": "x"}', '$.a'), JSON_EXTRACT('x', '$.a'), JSON_EXTRACT('{"a": 1}', '$.b'), JSON_VALID('{}'), JSON_VALID('x'), JSON_VALID(NULL)
-- A DOUBLE of fixed decimals a derived table materializes is stored in its DOUBLE(length, decimals): rounded to them, held within its width.
SELECT t.* FROM (SELECT AVG(CEIL(GREATEST(1e0, 9223372036854775808))) a FROM request) t
SELECT t.a + 1 FROM (SELECT DISTINCT ROUND(1e18,1) a FROM request) t
SELECT t.* FROM (SELECT DISTINCT ROUND(-1e18,1) a FROM request) t
WITH c AS (SELECT ROUND(1e18, 2) a FROM request LIMIT 1) SELECT * FROM c
SELECT t.a * 3 FROM (SELECT AVG(CEIL(req_time * 7 / 3)) / 3 a FROM request) t
SELECT t.a * 3, t.b FROM (SELECT AVG(CEIL(req_time * 7)) / 3 a, SUM(ROUND(req_time, 1)) b FROM request GROUP BY status) t
-- SUM and AVG of a DOUBLE: MariaDB's lengths (the argument's, AVG's 4 more, within float_length).
SELECT SUM(ROUND(1.5e0,1)), SUM(1.5e0), AVG(1.5e0), AVG(ROUND(2e0,1)), SUM(CEIL(1.5e0)), AVG(CEIL(req_time)) FROM request
-- A DATETIME or TIME rounded or truncated keeps its type, with the fraction digits asked for.
SELECT ROUND(TIMESTAMP '2038-01-19 03:14:07', 2), TRUNCATE(TIME '10:00:00', 3), ROUND(FROM_UNIXTIME(1.25), 1), ROUND(FROM_UNIXTIME(1.25)), TRUNCATE(FROM_UNIXTIME(1.75), 1), ROUND(FROM_UNIXTIME(59.5))
SELECT ROUND(TIME '-10:00:00.5'), ROUND(TIME '838:59:59.5'), ROUND(TIMESTAMP '2024-12-31 23:59:59.999', 2), ROUND(TIMESTAMP '2024-03-05 12:00:00', NULL), TRUNCATE(TIMESTAMP '2024-03-05 12:00:00.123456', -1), ROUND(TIMESTAMP '9999-12-31 23:59:59.9')
-- A DECIMAL of no decimals merged with integers is a DECIMAL.
SELECT CASE 1e0 WHEN NULL THEN ROUND(1.5) ELSE 1 END, IF(status > 0, ROUND(12.5), 1) FROM request LIMIT 1

-- Real-world shapes (issue 80): what dashboards (Grafana, Metabase, Redash: time buckets, top-N,
-- percent of total, CASE buckets, ROLLUP, windows, CTEs), GUI clients at connect and browse
-- (SHOW …, @@variables, information_schema, LIMIT 0, 1000), cron and PDO scripts (parameters
-- bound as strings, LIKE escapes, CONCAT_WS, GROUP_CONCAT, FORMAT, INTERVAL) and engineers at
-- the prompt send. What depends on the server itself (versions, engines, uptime) is left out.
SELECT FLOOR(UNIX_TIMESTAMP(FROM_UNIXTIME(timestamp))/60)*60 AS time_sec, COUNT(*) AS value FROM request GROUP BY 1 ORDER BY 1
SELECT UNIX_TIMESTAMP(FROM_UNIXTIME(timestamp)) DIV 300 * 300 AS "time", hostname AS metric, AVG(req_time) AS value FROM request GROUP BY 1, 2 ORDER BY 1
SELECT DATE_FORMAT(FROM_UNIXTIME(timestamp), '%Y-%m-%d %H:%i:00') AS minute, COUNT(*) FROM request GROUP BY minute ORDER BY minute
SELECT DATE_FORMAT(FROM_UNIXTIME(timestamp), '%Y-%m-%d') AS day, status, COUNT(*) AS n FROM request GROUP BY day, status ORDER BY day, status
SELECT FROM_UNIXTIME(FLOOR(timestamp/60)*60) AS time, SUM(req_time) AS total FROM request GROUP BY 1 ORDER BY 1
SELECT UNIX_TIMESTAMP(DATE_FORMAT(FROM_UNIXTIME(timestamp), '%Y-%m-%d %H:00:00')) AS time_sec, COUNT(*) FROM request GROUP BY 1 ORDER BY 1
SELECT FROM_UNIXTIME(timestamp) AS time, req_time AS value, script_name AS metric FROM request WHERE timestamp BETWEEN 1600000000 AND 4000000000 ORDER BY timestamp, id LIMIT 20
SELECT script_name, COUNT(*) AS hits, ROUND(AVG(req_time)*1000, 1) AS avg_ms, ROUND(MAX(req_time)*1000) AS max_ms FROM request GROUP BY script_name ORDER BY hits DESC, script_name LIMIT 10
SELECT script_name, SUM(req_time) AS total FROM request GROUP BY script_name ORDER BY total DESC LIMIT 3
SELECT hostname, COUNT(*) AS n, ROUND(100 * COUNT(*) / (SELECT COUNT(*) FROM request), 2) AS pct FROM request GROUP BY hostname ORDER BY pct DESC, hostname
SELECT status, COUNT(*) / (SELECT COUNT(*) FROM request) * 100 AS percent FROM request GROUP BY status ORDER BY status
SELECT script_name, SUM(req_time) * 100 / (SELECT SUM(req_time) FROM request) AS share FROM request GROUP BY script_name ORDER BY share DESC
SELECT CASE WHEN status BETWEEN 200 AND 299 THEN '2xx' WHEN status BETWEEN 300 AND 399 THEN '3xx' WHEN status BETWEEN 400 AND 499 THEN '4xx' ELSE '5xx' END AS class, COUNT(*) FROM request GROUP BY class ORDER BY class
SELECT CASE WHEN req_time < 0.1 THEN '<100ms' WHEN req_time < 0.5 THEN '100-500ms' WHEN req_time < 1 THEN '0.5-1s' ELSE '>1s' END AS bucket, COUNT(*) AS n FROM request GROUP BY bucket ORDER BY MIN(req_time)
SELECT CONCAT(FLOOR(req_time), '-', FLOOR(req_time) + 1, 's') AS bucket, COUNT(*) FROM request GROUP BY FLOOR(req_time) ORDER BY FLOOR(req_time)
SELECT COALESCE(schema, 'none') AS schema, COUNT(*) FROM request GROUP BY 1 ORDER BY 1
SELECT COALESCE(MAX(req_time), 0) AS worst FROM request WHERE status = 999
SELECT IFNULL(SUM(req_time), 0) AS total, COUNT(*) FROM request WHERE status = 999
SELECT hostname, script_name, COUNT(*) AS n FROM request GROUP BY hostname, script_name HAVING n >= 10 ORDER BY n DESC, hostname, script_name
SELECT script_name, AVG(req_time) AS a FROM request GROUP BY script_name HAVING a > (SELECT AVG(req_time) FROM request) ORDER BY a DESC
SELECT script_name, status, COUNT(*) FROM request GROUP BY script_name, status WITH ROLLUP
SELECT schema, COUNT(*), SUM(doc_size) FROM request GROUP BY schema WITH ROLLUP
SELECT hostname, SUM(req_time) AS t FROM request GROUP BY hostname WITH ROLLUP LIMIT 2
SELECT script_name, n, ROW_NUMBER() OVER (ORDER BY n DESC, script_name) AS pos FROM (SELECT script_name, COUNT(*) AS n FROM request GROUP BY script_name) t ORDER BY pos
SELECT hostname, script_name, n, RANK() OVER (PARTITION BY hostname ORDER BY n DESC) AS r FROM (SELECT hostname, script_name, COUNT(*) AS n FROM request GROUP BY hostname, script_name) t ORDER BY hostname, r, script_name
SELECT * FROM (SELECT hostname, script_name, COUNT(*) AS n, ROW_NUMBER() OVER (PARTITION BY hostname ORDER BY COUNT(*) DESC, script_name) AS rn FROM request GROUP BY hostname, script_name) t WHERE rn <= 2 ORDER BY hostname, rn
SELECT id, req_time, SUM(req_time) OVER (ORDER BY id) AS running FROM request ORDER BY id LIMIT 10
SELECT id, req_time, AVG(req_time) OVER (ORDER BY id ROWS BETWEEN 4 PRECEDING AND CURRENT ROW) AS moving FROM request ORDER BY id LIMIT 10
SELECT status, COUNT(*) AS n, ROUND(100 * COUNT(*) / SUM(COUNT(*)) OVER (), 1) AS pct FROM request GROUP BY status ORDER BY n DESC
SELECT hostname, COUNT(*) AS n, SUM(COUNT(*)) OVER (ORDER BY hostname) AS cum FROM request GROUP BY hostname ORDER BY hostname
SELECT id, DENSE_RANK() OVER (ORDER BY status DESC) AS d, NTILE(3) OVER (ORDER BY id) AS t FROM request ORDER BY id LIMIT 8
SELECT id, LAST_VALUE(id) OVER (PARTITION BY hostname ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS last FROM request ORDER BY id LIMIT 6
SELECT id, NTH_VALUE(status, 2) OVER (ORDER BY id) AS second FROM request ORDER BY id LIMIT 4
WITH slow AS (SELECT * FROM request WHERE req_time > 1) SELECT script_name, COUNT(*) AS n, MAX(req_time) FROM slow GROUP BY script_name ORDER BY n DESC, script_name
SELECT hostname, SUM(CASE WHEN status = 200 THEN 1 ELSE 0 END) AS ok, SUM(CASE WHEN status >= 500 THEN 1 ELSE 0 END) AS err, SUM(IF(status = 404, 1, 0)) AS nf FROM request GROUP BY hostname ORDER BY hostname
SELECT script_name, COUNT(IF(status >= 500, 1, NULL)) AS errors, COUNT(*) AS total FROM request GROUP BY script_name ORDER BY errors DESC, script_name
SELECT script_name, AVG(CASE WHEN status = 200 THEN req_time END) AS ok_time FROM request GROUP BY script_name ORDER BY script_name
SELECT SUM(req_time) / NULLIF(SUM(req_count), 0) AS avg_time, MAX(timestamp) - MIN(timestamp) AS span FROM request
SELECT COUNT(*) / GREATEST(MAX(timestamp) - MIN(timestamp), 1) AS rps FROM request
SELECT hostname, ROUND(SUM(doc_size) / 1024, 2) AS mb, ROUND(AVG(mem_peak_usage)) AS mem FROM request GROUP BY hostname ORDER BY mb DESC
SELECT t.hit_count, COUNT(*) AS timers, ROUND(SUM(t.value), 4) AS total FROM timer t GROUP BY t.hit_count ORDER BY t.hit_count
SELECT r.script_name, tt.value AS grp, ROUND(SUM(t.value) * 1000, 2) AS ms FROM request r JOIN timer t ON t.request_id = r.id JOIN timertag tt ON tt.timer_id = t.id JOIN tag g ON g.id = tt.tag_id WHERE g.name = 'group' GROUP BY r.script_name, tt.value ORDER BY r.script_name, grp
SELECT r.hostname, COUNT(DISTINCT r.id) AS reqs, COUNT(t.id) AS timers, COUNT(t.id) / COUNT(DISTINCT r.id) AS per_req FROM request r LEFT JOIN timer t ON t.request_id = r.id GROUP BY r.hostname ORDER BY r.hostname
SELECT status, MIN(req_time), MAX(req_time), AVG(req_time), STDDEV_POP(req_time) FROM request GROUP BY status ORDER BY status
SELECT DATE(FROM_UNIXTIME(timestamp)) AS d, HOUR(FROM_UNIXTIME(timestamp)) AS h, COUNT(*) FROM request GROUP BY d, h ORDER BY d, h
SELECT DATE_FORMAT(FROM_UNIXTIME(timestamp), '%H:%i') AS hm, COUNT(*) FROM request GROUP BY hm ORDER BY hm LIMIT 5
SELECT FROM_UNIXTIME(MIN(timestamp)) AS first, FROM_UNIXTIME(MAX(timestamp)) AS last FROM request
SELECT script_name, ROUND(SUM(ru_utime + ru_stime), 3) AS cpu, ROUND(SUM(ru_utime + ru_stime) / SUM(req_time) * 100, 1) AS cpu_pct FROM request GROUP BY script_name ORDER BY cpu DESC
SELECT hostname AS metric, COUNT(*) AS value, UNIX_TIMESTAMP(DATE(FROM_UNIXTIME(timestamp))) AS time_sec FROM request GROUP BY hostname, time_sec ORDER BY time_sec, metric
SELECT script_name, COUNT(*) FROM request WHERE script_name IN (SELECT script_name FROM request WHERE status >= 500) GROUP BY script_name ORDER BY script_name
SELECT script_name FROM request r WHERE EXISTS (SELECT 1 FROM timer t WHERE t.request_id = r.id AND t.hit_count > 3) GROUP BY script_name ORDER BY script_name
SELECT s.script_name, s.n, e.errors FROM (SELECT script_name, COUNT(*) AS n FROM request GROUP BY script_name) s LEFT JOIN (SELECT script_name, COUNT(*) AS errors FROM request WHERE status >= 500 GROUP BY script_name) e ON e.script_name = s.script_name ORDER BY s.script_name
SELECT MAX(n), MIN(n), AVG(n) FROM (SELECT hostname, COUNT(*) AS n FROM request GROUP BY hostname) t
SELECT hostname, ROUND(AVG(req_time), 3) AS avg, ROUND(MAX(req_time), 3) AS max FROM request WHERE status = 200 GROUP BY hostname HAVING COUNT(*) > 10 ORDER BY avg DESC LIMIT 5
SELECT LEFT(script_name, LOCATE('/', script_name, 2)) AS dir, COUNT(*) FROM request GROUP BY dir ORDER BY dir
SELECT SUBSTRING_INDEX(server_name, '.', 1) AS srv, COUNT(*) FROM request GROUP BY srv ORDER BY srv
SELECT status, COUNT(*) AS n FROM request GROUP BY status ORDER BY 2 DESC, 1 LIMIT 0, 3
SHOW FULL TABLES FROM pinba LIKE 'req%'
SHOW COLUMNS FROM tag
SHOW INDEX FROM request
SHOW KEYS FROM timer
SHOW DATABASES LIKE 'pinba'
SHOW VARIABLES LIKE 'lower_case_table_names'
SHOW SESSION VARIABLES LIKE 'sql_mode'
SHOW VARIABLES LIKE 'max_allowed_packet'
SHOW STATUS LIKE 'Ssl_cipher'
SHOW COLLATION WHERE Charset = 'utf8mb4' AND Collation = 'utf8mb4_general_ci'
SHOW CHARSET WHERE Charset = 'utf8mb4'
SHOW CREATE DATABASE pinba
SHOW TRIGGERS FROM pinba
SHOW EVENTS FROM pinba
SELECT @@global.max_allowed_packet
SELECT @@SESSION.sql_mode, @@GLOBAL.sql_mode
SELECT @@character_set_database, @@collation_database
SELECT DATABASE(), SCHEMA()
SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'pinba'
SELECT * FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'pinba'
SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME IN ('request', 'timer', 'timertag', 'tag') ORDER BY TABLE_NAME
SELECT table_name AS name, table_type AS type FROM information_schema.tables WHERE table_schema = 'pinba' AND table_name LIKE 'time%' ORDER BY table_name
SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = 'request'
SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = 'timer'
SELECT COLUMN_NAME, ORDINAL_POSITION, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = 'tag' ORDER BY ORDINAL_POSITION
SELECT TABLE_NAME, COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME IN ('request', 'timer', 'timertag', 'tag') GROUP BY TABLE_NAME ORDER BY TABLE_NAME
SELECT COLUMN_NAME, CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = 'request' AND DATA_TYPE = 'varchar' ORDER BY ORDINAL_POSITION
SELECT c.TABLE_NAME, c.COLUMN_NAME FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = 'pinba' AND c.COLUMN_NAME = 'id' AND c.TABLE_NAME IN ('request', 'timer', 'timertag', 'tag') ORDER BY c.TABLE_NAME
SELECT * FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'pinba'
SELECT ROUTINE_NAME, ROUTINE_TYPE FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'pinba' ORDER BY ROUTINE_NAME
SELECT INDEX_NAME, COLUMN_NAME, NON_UNIQUE, SEQ_IN_INDEX FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = 'request' ORDER BY INDEX_NAME, SEQ_IN_INDEX
SELECT * FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'pinba' AND REFERENCED_TABLE_NAME IS NOT NULL
SELECT CONSTRAINT_NAME FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = 'request'
SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = 'pinba'
SELECT * FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'pinba'
SELECT COUNT(*) FROM information_schema.PARAMETERS WHERE SPECIFIC_SCHEMA = 'pinba'
SELECT CHARACTER_SET_NAME, DEFAULT_COLLATE_NAME, MAXLEN FROM information_schema.CHARACTER_SETS WHERE CHARACTER_SET_NAME = 'utf8mb4'
SELECT COLLATION_NAME, CHARACTER_SET_NAME, IS_DEFAULT FROM information_schema.COLLATIONS WHERE COLLATION_NAME = 'utf8mb4_general_ci'
SELECT * FROM request LIMIT 0, 1000
SELECT * FROM `pinba`.`timer` LIMIT 0, 1000
SELECT * FROM tag LIMIT 0, 200
SELECT `request`.* FROM `pinba`.`request` ORDER BY `id` LIMIT 0, 50
SELECT * FROM timertag ORDER BY timer_id, tag_id LIMIT 10 OFFSET 5
SELECT COUNT(*) FROM `pinba`.`timer`
SELECT COUNT(1) FROM timertag
SELECT COUNT(*) AS cnt FROM (SELECT * FROM request WHERE status = 200) AS t
SELECT * FROM request WHERE 1 = 0
SELECT * FROM request WHERE script_name LIKE '%cron%' ORDER BY id LIMIT 0, 25
SELECT * FROM timer WHERE request_id = (SELECT MIN(id) FROM request) ORDER BY id
SELECT `id`, `hostname`, `script_name`, `status` FROM `request` WHERE `status` <> 200 ORDER BY `id` DESC LIMIT 0, 30
SELECT request.id, request.script_name FROM request ORDER BY request.id LIMIT 300 OFFSET 0
SELECT COUNT(*) FROM request WHERE status = '500'
SELECT COUNT(*) FROM request WHERE status = '200 '
SELECT COUNT(*) FROM request WHERE status IN ('404', '500')
SELECT COUNT(*) FROM request WHERE status NOT IN ('200')
SELECT COUNT(*) FROM request WHERE req_time > '0.5'
SELECT COUNT(*) FROM request WHERE req_time >= '1.5' AND req_time < '2'
SELECT COUNT(*) FROM request WHERE doc_size > '50'
SELECT COUNT(*) FROM request WHERE id BETWEEN '10' AND '20'
SELECT COUNT(*) FROM request WHERE id = '7abc'
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) > '2026-11-28 10:00'
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) > '2020-01-01'
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) BETWEEN '2020-01-01 00:00:00' AND '2099-12-31 23:59:59'
SELECT COUNT(*) FROM request WHERE DATE(FROM_UNIXTIME(timestamp)) >= '2020-01-01'
SELECT COUNT(*) FROM request WHERE timestamp > UNIX_TIMESTAMP('2020-01-01 00:00:00')
SELECT COUNT(*) FROM request WHERE timestamp > '1600000000'
SELECT COUNT(*) FROM request WHERE hostname = 'h1' AND status = '200' AND req_time > '0.1'
SELECT COUNT(*) FROM request WHERE script_name LIKE '/api/%'
SELECT COUNT(*) FROM request WHERE script_name LIKE '%\_%'
SELECT COUNT(*) FROM request WHERE server_name LIKE 's_.example.com'
SELECT COUNT(*) FROM request WHERE script_name LIKE '/admin/%'
SELECT COUNT(*) FROM request WHERE script_name LIKE '%!.php' ESCAPE '!'
SELECT COUNT(*) FROM request WHERE script_name NOT LIKE '%.php'
SELECT id, CONCAT_WS(' ', hostname, server_name, script_name) AS line FROM request ORDER BY id LIMIT 5
SELECT id, CONCAT_WS(',', hostname, NULL, status) FROM request ORDER BY id LIMIT 3
SELECT hostname, GROUP_CONCAT(DISTINCT script_name ORDER BY script_name SEPARATOR '|') AS scripts FROM request GROUP BY hostname ORDER BY hostname
SELECT GROUP_CONCAT(DISTINCT hostname SEPARATOR ', ') AS hosts FROM request WHERE status >= 500
SELECT status, GROUP_CONCAT(id ORDER BY id DESC SEPARATOR '') FROM request WHERE id < 20 GROUP BY status ORDER BY status
SELECT IFNULL(MAX(id), 0) + 1 AS next_id FROM request
SELECT IFNULL(NULL, 'none'), IFNULL(schema, '-') FROM request ORDER BY id LIMIT 2
SELECT id, ROUND(req_time, 2) AS t, ROUND(req_time * 1000) AS ms FROM request ORDER BY id LIMIT 5
SELECT ROUND(SUM(req_time), 2), ROUND(AVG(doc_size), 2), ROUND(AVG(status)) FROM request
SELECT FORMAT(SUM(doc_size), 2), FORMAT(COUNT(*), 0), FORMAT(AVG(req_time), 3) FROM request
SELECT FORMAT(1234567.891, 2), FORMAT(0.5, 0), FORMAT(-1234.5, 1)
SELECT DATE('2026-11-28 10:11:12'), DATE('2026-11-28'), DATE(20261128), DATE('nope')
SELECT '2026-11-28' + INTERVAL 1 DAY, '2026-11-28 10:00' - INTERVAL 90 MINUTE, DATE '2026-11-28' + INTERVAL 1 MONTH
SELECT DATE_ADD('2026-01-31', INTERVAL 1 MONTH), DATE_SUB('2026-03-31', INTERVAL 1 MONTH), DATE_ADD('2026-11-28', INTERVAL -7 DAY)
SELECT TIMESTAMPDIFF(MINUTE, '2026-11-28 10:00', '2026-11-28 12:30'), DATEDIFF('2026-12-01', '2026-11-28')
SELECT COUNT(*) FROM request WHERE req_time BETWEEN 0.5 AND 1.5
SELECT COUNT(*) FROM request WHERE req_time NOT BETWEEN '0.5' AND '1.5'
SELECT COUNT(*) FROM request WHERE status BETWEEN '400' AND '599'
SELECT COUNT(*) FROM request WHERE hostname = 'H0 '
SELECT id FROM request WHERE id IN ('1', '2', '3') ORDER BY id
SELECT id FROM request WHERE id IN (1, '2', 3.0) ORDER BY id
SELECT COUNT(*) FROM timer WHERE value > '0.01'
SELECT COUNT(*) FROM timer WHERE hit_count = '2'
SELECT COUNT(*) FROM timertag WHERE value = 'get'
SELECT COUNT(*) FROM tag WHERE name IN ('group', 'OP')
SELECT MAX(id) FROM request WHERE timestamp <= '4000000000'
SELECT id, status, IF(status >= 500, 'ERROR', IF(status >= 400, 'WARN', 'OK')) AS level FROM request ORDER BY id LIMIT 10
SELECT CONCAT('req ', id, ': ', script_name, ' (', ROUND(req_time * 1000), ' ms)') FROM request ORDER BY id LIMIT 3
SELECT LPAD(id, 6, '0'), RPAD(hostname, 5, '.') FROM request ORDER BY id LIMIT 3
SELECT COUNT(*) FROM request WHERE id > 0 AND id <= '120'
SELECT SUM(req_time > '1'), SUM(status = '404'), SUM(hostname = 'h2') FROM request
SELECT COUNT(*) FROM request WHERE req_time * 1000 > '500'
SELECT COUNT(*) FROM request WHERE UNIX_TIMESTAMP(FROM_UNIXTIME(timestamp)) = timestamp
SELECT id, FROM_UNIXTIME(timestamp, '%Y-%m-%d') = DATE(FROM_UNIXTIME(timestamp)) FROM request ORDER BY id LIMIT 2
SELECT TRIM(BOTH '/' FROM script_name), REPLACE(script_name, '.php', '') FROM request GROUP BY script_name ORDER BY 1
SELECT COUNT(*) FROM request WHERE LOWER(script_name) = '/admin/edit.php'
SELECT COUNT(*) FROM request WHERE script_name = BINARY '/admin/edit.php'
SELECT COUNT(*) FROM request WHERE FIND_IN_SET(status, '404,500') > 0
SELECT 1 / 0
SELECT 1 % 0, 1 DIV 0, MOD(5, 0)
SELECT 0 / 0, -1 / 0, 1.0 / 0
SELECT 10 / 3, 10 DIV 3, 10 % 3, -10 % 3, 10.0 / 3
SELECT 2 + 3 * 4, (2 + 3) * 4, 2 - -2, - - 3
SELECT 9223372036854775807 + 0, -9223372036854775808, 18446744073709551615
SELECT 0.1 + 0.2 = 0.3, 0.1e0 + 0.2e0 = 0.3e0, 1 = 1.0
SELECT 3 / 2 * 2, 3 * 2 / 2, 1 / 3 * 3
SELECT POW(2, 10), POWER(2, 0.5), SQRT(16), SQRT(-1)
SELECT 5 > 3, 5 < 3, 5 = '5', 'abc' = 'ABC', NULL = NULL, NULL <=> NULL
SELECT 'abc' < 'abd', 'a' > 'B', 'Z' > 'a'
SELECT 1 AND 0, 1 OR 0, NOT 1, 1 XOR 1, !0
SELECT UPPER('hello'), LOWER('WORLD'), LENGTH('héllo'), CHAR_LENGTH('héllo'), REVERSE('abc')
SELECT CONCAT('a', NULL, 'b'), CONCAT_WS('-', 'a', NULL, 'b'), CONCAT('x', 1, 2.50)
SELECT SUBSTRING('hello world', 7), SUBSTRING('hello', 2, 3), LEFT('hello', 2), RIGHT('hello', 3)
SELECT REPLACE('a.b.c', '.', '/'), LOCATE('l', 'hello'), INSTR('hello', 'lo'), POSITION('o' IN 'foo')
SELECT TRIM('  x  '), LTRIM('  x'), RTRIM('x  '), LENGTH(TRIM('  x  '))
SELECT REPEAT('ab', 3), SPACE(3), LPAD('7', 3, '0'), RPAD('ab', 5, '-')
SELECT STRCMP('a', 'b'), STRCMP('b', 'a'), STRCMP('a', 'A')
SELECT HEX('abc'), UNHEX('616263'), HEX(255), BIN(10), OCT(8)
SELECT MD5('pinba'), SHA1('pinba'), SHA2('pinba', 256)
SELECT CAST('42' AS UNSIGNED), CAST('-1' AS SIGNED), CAST('3.7' AS SIGNED), CAST(3.7 AS SIGNED)
SELECT CAST('2026-11-28' AS DATE), CAST('2026-11-28 10:20:30' AS DATETIME), CAST('10:20' AS TIME)
SELECT CAST(1.23456 AS DECIMAL(5, 2)), CAST('abc' AS DECIMAL(5, 2)), CAST(123 AS CHAR)
SELECT CONVERT('42', SIGNED), CONVERT(3.14159, DECIMAL(4, 2)), CONVERT('x' USING utf8mb4)
SELECT CAST(-1 AS UNSIGNED), CAST(18446744073709551615 AS SIGNED)
SELECT '10' + 5, '3 apples' + 2, 'abc' + 1, '1e2' + 0, '0x10' + 0
SELECT 0x41, X'4142', 0x41 + 0
SELECT CHARSET('abc'), COLLATION('abc'), CHARSET(123), COLLATION(CONCAT('a', 'b'))
SELECT @@character_set_connection, @@collation_connection, @@character_set_results
SELECT 'é' = 'e', 'ß' = 'ss', 'a' = 'a   ', 'A' LIKE 'a'
SELECT 'abc' COLLATE utf8mb4_bin = 'ABC', 'abc' = 'ABC' COLLATE utf8mb4_general_ci
SELECT IF(1 > 2, 'yes', 'no'), IFNULL(NULL, 0), NULLIF(5, 5), NULLIF(5, 6), COALESCE(NULL, NULL, 3)
SELECT GREATEST(1, 5, 3), LEAST('b', 'a', 'c'), GREATEST(1, NULL), LEAST(2, '10')
SELECT ABS(-5), SIGN(-5), CEIL(1.1), FLOOR(-1.1), ROUND(1.5), ROUND(-1.5), TRUNCATE(1.999, 2)
SELECT ROUND(123.456, -1), ROUND(123.456, 1), ROUND(1.005, 2), ROUND(1.005e0, 2)
SELECT PI(), EXP(1), LN(10), LOG(100), LOG10(1000), LOG2(8), LOG(2, 8)
SELECT MOD(10, 3), 10 MOD 3, MOD(-10, 3), MOD(10.5, 3)
SELECT ~0, 1 << 3, 255 >> 4, 5 & 3, 5 | 3, 5 ^ 3
SELECT YEAR('2026-11-28'), MONTH('2026-11-28'), DAY('2026-11-28'), DAYNAME('2026-11-28'), MONTHNAME('2026-11-28')
SELECT DATE_FORMAT('2026-11-28 13:05:09', '%W, %e %M %Y %l:%i %p'), TIME_FORMAT('13:05:09', '%H.%i')
SELECT UNIX_TIMESTAMP('2026-11-28 00:00:00'), FROM_UNIXTIME(1764288000), FROM_UNIXTIME(1764288000, '%Y-%m-%d %H:%i')
SELECT STR_TO_DATE('28/11/2026', '%d/%m/%Y'), STR_TO_DATE('2026-11-28 10:20', '%Y-%m-%d %H:%i')
SELECT LAST_DAY('2026-02-10'), DAYOFWEEK('2026-11-28'), WEEKDAY('2026-11-28'), DAYOFYEAR('2026-11-28'), WEEK('2026-11-28')
SELECT SEC_TO_TIME(3725), TIME_TO_SEC('01:02:05'), MAKEDATE(2026, 332), MAKETIME(10, 20, 30)
SELECT DATE '2026-11-28' - INTERVAL 1 DAY, TIMESTAMP '2026-11-28 10:00:00' + INTERVAL 1 HOUR, TIME '10:00' + INTERVAL 30 MINUTE
SELECT id, hostname, script_name, req_time FROM request ORDER BY req_time DESC LIMIT 10
SELECT * FROM request ORDER BY id DESC LIMIT 1
SELECT * FROM timer ORDER BY value DESC, id LIMIT 5
SELECT * FROM request WHERE id = 17
SELECT MAX(req_time), MIN(req_time), AVG(req_time), SUM(req_time), COUNT(*) FROM request
SELECT COUNT(DISTINCT hostname), COUNT(DISTINCT script_name), COUNT(DISTINCT status) FROM request
SELECT id, req_time, ru_utime, ru_stime FROM request WHERE ru_utime > req_time ORDER BY id
SELECT id, req_time * 1000 AS ms FROM request ORDER BY ms DESC LIMIT 3
SELECT 'it''s', "double", 'back\\slash', 'tab\tx', 'nl\nx'
SELECT 'a' 'b' 'c', _utf8mb4'x', N'y'
SELECT LENGTH(''), '' IS NULL, '' = 0, 'a' = 0
SELECT 1 BETWEEN 0 AND 2, 'b' BETWEEN 'a' AND 'c', 5 NOT IN (1, 2)
SELECT 100 * 1.1, 1.1 * 1.1, 3.0 * 2, 0.5 - 1
SELECT 1.5e3, 1E-3, .5, 5., 1e0
SELECT TIMEDIFF('12:00:00', '10:30:00'), ADDTIME('10:00:00', '01:30:00'), SUBTIME('10:00:00', '00:00:01')
SELECT QUOTE('it''s'), QUOTE(NULL), ASCII('A'), CHAR(65, 66)
SELECT ELT(2, 'a', 'b', 'c'), FIELD('b', 'a', 'b'), FIND_IN_SET('b', 'a,b,c'), INSERT('hello', 1, 1, 'J')
SELECT SUBSTRING_INDEX('a.b.c', '.', 2), SUBSTRING_INDEX('a.b.c', '.', -1), MID('hello', 2, 2)
SELECT 'hello' REGEXP '^h', 'hello' RLIKE 'x', REGEXP_REPLACE('a1b2', '[0-9]', ''), REGEXP_SUBSTR('ab12cd', '[0-9]+')
SELECT INET_ATON('10.0.0.1'), INET_NTOA(167772161)
SELECT BIT_LENGTH('abc'), OCTET_LENGTH('é'), CHARACTER_LENGTH('é')
SELECT CAST(1 AS DOUBLE), CAST('1.5' AS FLOAT), CAST(2 AS DECIMAL)
SELECT 5 DIV 2 * 2, 7 / 7, 1 - 1.00
SELECT COUNT(*) FROM request WHERE id = 7.5
SELECT id, script_name FROM request WHERE id = '12'
SELECT name FROM tag WHERE id = '1'
SELECT COUNT(*) FROM timertag WHERE timer_id = 1.0
SELECT COUNT(*) FROM timer WHERE id = 'x'
SELECT COUNT(*) FROM request WHERE id = NULL
SELECT TIME '838:00:00' + INTERVAL 2 HOUR, TIME '-10:00' + INTERVAL 1 HOUR, TIME '10:00' - INTERVAL 11 HOUR, TIME '10:00' + INTERVAL 1 WEEK, TIME '10:00' + INTERVAL '1:30' HOUR_MINUTE, DATE_SUB(TIME '10:00', INTERVAL 1 DAY)
SELECT CAST('10:00' AS TIME) + INTERVAL 5 MINUTE, SEC_TO_TIME(60) + INTERVAL 1 MINUTE, MAKETIME(1, 2, 3) - INTERVAL 1 SECOND, INTERVAL 1 HOUR + TIME '01:00', TIME '10:00' + INTERVAL NULL HOUR
SELECT GROUP_CONCAT(DISTINCT x) FROM (SELECT 'b' x UNION ALL SELECT 'a' UNION ALL SELECT 'C' UNION ALL SELECT 'A') t
SELECT GROUP_CONCAT(DISTINCT x, y) FROM (SELECT 'b' x, 2 y UNION ALL SELECT 'a', 10 UNION ALL SELECT 'a', 9) t
SELECT GROUP_CONCAT(DISTINCT status SEPARATOR '|'), GROUP_CONCAT(DISTINCT script_name) FROM request
SELECT hostname, GROUP_CONCAT(DISTINCT status) FROM request GROUP BY hostname ORDER BY hostname
SELECT N'abc' = 'ABC', _utf8mb4'abc' = 'ABC', _binary'abc' = 'ABC', _latin1'x'
SELECT UNIX_TIMESTAMP(DATE_FORMAT(FROM_UNIXTIME(timestamp), '%Y-%m-%d %H:00:00')) AS t, UNIX_TIMESTAMP(script_name), UNIX_TIMESTAMP(CONCAT(script_name, '')) FROM request ORDER BY id LIMIT 2
SELECT CAST(1 AS DOUBLE), CAST('1.5' AS FLOAT), CAST(status AS FLOAT), CAST(NULL AS DOUBLE) FROM request ORDER BY id LIMIT 1
SELECT CAST('abcé' AS CHAR(2)), CAST(12345 AS CHAR(3)), CAST('abc' AS CHAR(0)), CONVERT(script_name, CHAR(4)), CAST(NULL AS CHAR(2)) FROM request ORDER BY id LIMIT 2
SHOW KEYS FROM tag
SHOW TRIGGERS
SHOW EVENTS
SHOW PROCEDURE STATUS WHERE Db = 'pinba'
SHOW FUNCTION STATUS WHERE Db = 'pinba'
SHOW COLLATION LIKE 'utf8mb4_general_ci'
SHOW COLUMNS FROM tag WHERE Field = 'name'
SELECT COLUMN_NAME, COLUMN_DEFAULT, IS_GENERATED, GENERATION_EXPRESSION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = 'tag' ORDER BY ORDINAL_POSITION
SELECT TABLE_NAME, MAX_INDEX_LENGTH, TEMPORARY FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME IN ('request', 'tag') ORDER BY 1
SELECT @@character_set_filesystem, @@character_set_system, @@sql_auto_is_null, @@sql_safe_updates
-- IS [NOT] UNKNOWN is a predicate: a LONG of 1.
SELECT 1 IS UNKNOWN, NULL IS NOT UNKNOWN, status IS UNKNOWN FROM request LIMIT 1
-- Numbers read as strings, by one rule (issue 80): a DECIMAL with its scale, a DOUBLE with its fixed decimals or its shortest digits.
SELECT RTRIM(100.00), CRC32(IF(0, 1.5, 1)), CAST(ROUND(1e0, 2) AS CHAR), CRC32(REPEAT(ROUND(1.5, 3), 2)), CRC32(INSERT(0.0, 5, 0, '')) FROM timertag LIMIT 1
SELECT CAST(1e0 AS CHAR), CRC32(CONCAT(-0.0)), 100.00 LIKE '100.00', ROUND(2.5e0, 1) LIKE '2.5' FROM timertag LIMIT 1
SELECT IF(1, 1.50, 'a'), COALESCE(NULL, ROUND(1e0, 2), 'a'), IFNULL(NULL, 2.50) FROM request ORDER BY id LIMIT 1
-- A constant folded to a number in GROUP_CONCAT's ORDER BY is a value there, not a position.
SELECT GROUP_CONCAT(DISTINCT COERCIBILITY(1) ORDER BY COERCIBILITY(1)) FROM timertag
-- Wide numbers: SUM of integers exact past 2^63, a constant past 2^63 negated a DECIMAL, ABS of a DECIMAL exact.
SELECT SUM(9223372036854775807), SUM(id + 9223372036854775), ABS(SUM(9223372036854775807)) FROM request
SELECT -(~0), ABS(-(~0)), ABS((1.5 - -9223372036854775808)), ABS(-99999999999999999999.5)
=SELECT (9223372036854775807 + 9223372036854775807)
=SELECT id + 9223372036854775807 FROM request
SELECT id, ~0 - id AS u, id + 99999999999999999999.5 AS d FROM request ORDER BY u, 2 LIMIT 3
SELECT id FROM request ORDER BY 99999999999999999999.5 - id, ~0 - id DESC LIMIT 3
SELECT MIN(id + 99999999999999999999.5), MAX(99999999999999999999.5 - id), MIN(-id - 0.5) FROM request
-- A DOUBLE past its range is error 1690 (POW, EXP, DEGREES, RADIANS, and + - * / where an operand's magnitude is unbounded by the data: a literal or POW/EXP); FLOOR/CEIL of a DOUBLE past a BIGINT stay DOUBLEs; FORMAT of a double past 17 digits writes its shortest digits then zeros; ORD of a binary string reads its first byte; ROUND of a DECIMAL to no places is a DECIMAL in arithmetic
=SELECT POW(0, -2)
=SELECT POW(-8, 0.5)
=SELECT EXP(1000)
=SELECT 1e308 * 10
=SELECT -1e308 - 1e308
=SELECT 1e308 / 1e-10
=SELECT 1e308 + 1e308 > 0
=SELECT EXP(2) * 1e308
=SELECT DEGREES(1.7976931348623157e308)
=SELECT COT(-0.0)
SELECT 1e200 * 1e200 FROM request WHERE 0
SELECT 1e300 * 10, EXP(2) * 1e300, 1e-300 / 1e10
SELECT POW(2, 10), EXP(1), DEGREES(PI()), RADIANS(180)
SELECT FLOOR(1e19), CEIL(-1e30), FLOOR(9.3e18), FLOOR(1e300) + 1, CEIL(2.5e0)
SELECT FORMAT(1.7976931348623157e308, 1), FORMAT(-1.5e30, 2), FORMAT(1e20, 1)
SELECT ORD(CHAR(200, 1)), ORD(CHAR(65)), ORD(CHAR(status, 1)) FROM request ORDER BY id LIMIT 3
SELECT 1 * ROUND(1.5), ROUND(99.995) * 2, ROUND(1.5) + 1, TRUNCATE(2.75, 0) - 1
SELECT status, ROUND(AVG(status)) * 10 FROM request GROUP BY status ORDER BY status

-- Real-world shapes, round two (issue 80): what other tools send over the raw tables, grouped by tool:
-- Grafana 8-11 with its macros expanded and its builder, Metabase, Superset, Redash, Zeppelin,
-- the drivers (Connector/J, Connector/Python, Go, PHP, Perl DBI, Node), monitoring checks,
-- Excel/ODBC, the prompt, phpMyAdmin/Adminer; then the reduced statements of what they found.
-- Grafana 8-11 MySQL data source: macros expanded ($__timeGroup as UNIX_TIMESTAMP(col) DIV n * n, $__timeFilter as BETWEEN FROM_UNIXTIME, $__unixEpoch*)
SELECT UNIX_TIMESTAMP(FROM_UNIXTIME(timestamp)) DIV 60 * 60 AS "time", COUNT(*) AS "requests" FROM request WHERE FROM_UNIXTIME(timestamp) BETWEEN FROM_UNIXTIME(1600000000) AND FROM_UNIXTIME(2100000000) GROUP BY 1 ORDER BY 1
SELECT UNIX_TIMESTAMP(FROM_UNIXTIME(timestamp)) DIV 300 * 300 AS "time", hostname AS metric, AVG(req_time) * 1000 AS "avg ms" FROM request WHERE FROM_UNIXTIME(timestamp) BETWEEN FROM_UNIXTIME(1600000000) AND FROM_UNIXTIME(2100000000) GROUP BY 1, 2 ORDER BY 1, 2
SELECT timestamp DIV 60 * 60 AS "time", COUNT(*) AS value FROM request WHERE timestamp >= 1600000000 AND timestamp <= 2100000000 GROUP BY 1 ORDER BY 1
SELECT timestamp DIV 10 * 10 AS "time", script_name AS metric, SUM(req_time) AS value FROM request WHERE timestamp >= 1600000000 AND timestamp <= 2100000000 GROUP BY 1, 2 ORDER BY 1, 2
SELECT timestamp DIV 3600 * 3600 AS "time", MAX(req_time) AS "max", MIN(req_time) AS "min" FROM request WHERE timestamp >= 1600000000 AND timestamp <= 2100000000 GROUP BY 1 ORDER BY 1
SELECT timestamp AS time_sec, req_time AS value, hostname AS metric FROM request WHERE timestamp >= 1600000000 AND timestamp <= 2100000000 ORDER BY timestamp, id LIMIT 30
SELECT UNIX_TIMESTAMP(FROM_UNIXTIME(timestamp)) as time_sec, req_time AS value FROM request WHERE FROM_UNIXTIME(timestamp) BETWEEN FROM_UNIXTIME(1600000000) AND FROM_UNIXTIME(2100000000) ORDER BY id LIMIT 10
SELECT FROM_UNIXTIME(timestamp) AS "time", status, req_time FROM request WHERE FROM_UNIXTIME(timestamp) BETWEEN FROM_UNIXTIME(1600000000) AND FROM_UNIXTIME(2100000000) AND status >= 400 ORDER BY 1, id LIMIT 20
SELECT UNIX_TIMESTAMP(FROM_UNIXTIME(timestamp)) DIV 60 * 60 AS "time", SUM(status >= 500) / COUNT(*) * 100 AS "error rate" FROM request WHERE timestamp >= 1600000000 AND timestamp <= 2100000000 GROUP BY 1 ORDER BY 1
SELECT timestamp DIV 60 * 60 AS "time", CONCAT(hostname, ':', status) AS metric, COUNT(*) AS value FROM request GROUP BY 1, 2 ORDER BY 1, 2
SELECT timestamp DIV 60 * 60 AS "time", COUNT(DISTINCT script_name) AS "scripts", COUNT(DISTINCT hostname) AS "hosts" FROM request GROUP BY 1 ORDER BY 1
SELECT timestamp DIV 300 * 300 AS "time", SUM(doc_size) AS "KB", SUM(doc_size) / 300 AS "KB/s" FROM request GROUP BY 1 ORDER BY 1
SELECT timestamp DIV 60 * 60 AS "time", COUNT(*) / 60 AS rps FROM request WHERE timestamp >= 1600000000 AND timestamp <= 2100000000 GROUP BY 1 ORDER BY 1
SELECT timestamp DIV 60 * 60 AS "time", AVG(ru_utime + ru_stime) AS cpu, AVG(req_time) AS wall FROM request GROUP BY 1 ORDER BY 1
SELECT FROM_UNIXTIME(1600000000) AS from_t, FROM_UNIXTIME(2100000000) AS to_t, 1600000000 AS from_e, 2100000000 AS to_e
SELECT COUNT(*) AS value FROM request WHERE timestamp BETWEEN 1600000000 AND 2100000000 AND script_name IN ('/index.php', '/api/list.php')
SELECT COUNT(*) AS value FROM request WHERE timestamp >= 1600000000 AND timestamp <= 2100000000 AND hostname IN ('h0', 'h1', 'h2')
SELECT COUNT(*) FROM request WHERE hostname REGEXP '.*'
SELECT COUNT(*) FROM request WHERE hostname REGEXP '^(h0|h1)$'
SELECT COUNT(*) FROM request WHERE script_name REGEXP '^/api/'
SELECT DISTINCT hostname FROM request ORDER BY 1
SELECT DISTINCT hostname AS __text, hostname AS __value FROM request ORDER BY hostname
SELECT DISTINCT script_name AS __text, script_name AS __value FROM request WHERE hostname IN ('h0', 'h1') ORDER BY 1
SELECT DISTINCT server_name FROM request WHERE server_name <> '' ORDER BY server_name
SELECT DISTINCT status FROM request ORDER BY status DESC
SELECT DISTINCT name FROM tag ORDER BY name
SELECT DISTINCT value FROM timertag WHERE tag_id = (SELECT id FROM tag WHERE name = 'group') ORDER BY value
SELECT hostname, AVG(req_time) FROM pinba.request GROUP BY hostname LIMIT 50
SELECT COUNT(id), status FROM pinba.request GROUP BY status ORDER BY status ASC LIMIT 50
SELECT AVG(req_time), MAX(doc_size), hostname FROM pinba.request WHERE status = 200 GROUP BY hostname ORDER BY hostname DESC LIMIT 50
SELECT SUM(req_count), script_name FROM pinba.request WHERE (status >= 400 AND hostname = 'h1') GROUP BY script_name ORDER BY SUM(req_count) DESC, script_name LIMIT 50
SELECT script_name, req_time FROM pinba.request WHERE script_name LIKE '%api%' ORDER BY req_time DESC, id LIMIT 50
SELECT table_name FROM information_schema.tables WHERE table_schema = 'pinba' AND table_name IN ('request', 'tag', 'timer', 'timertag') ORDER BY table_name
SELECT COLUMN_NAME AS name, DATA_TYPE AS type FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = 'timertag'
SELECT hostname AS "Host", COUNT(*) AS "Requests", ROUND(AVG(req_time) * 1000, 2) AS "Avg (ms)", ROUND(MAX(req_time) * 1000, 2) AS "Max (ms)" FROM request WHERE timestamp BETWEEN 1600000000 AND 2100000000 GROUP BY hostname ORDER BY 2 DESC, 1
SELECT script_name AS "Script", SUM(req_time) AS "Total time" FROM request GROUP BY script_name ORDER BY 2 DESC LIMIT 5
SELECT COUNT(*) AS "Total", SUM(status >= 500) AS "5xx", SUM(status BETWEEN 400 AND 499) AS "4xx" FROM request WHERE timestamp >= 1600000000 AND timestamp <= 2100000000
SELECT AVG(req_time) AS "Mean", STDDEV(req_time) AS "StdDev", MAX(req_time) AS "Max" FROM request
SELECT status AS metric, COUNT(*) AS value FROM request GROUP BY status ORDER BY value DESC, metric
SELECT cast(cast(timestamp/(60) as signed)*60 as signed) AS "time", COUNT(*) FROM request WHERE timestamp >= 1600000000 AND timestamp <= 2100000000 GROUP BY 1 ORDER BY 1
SELECT floor(timestamp/60)*60 AS "time", hostname AS metric, COUNT(*) AS value FROM request GROUP BY 1, 2 ORDER BY 1
SELECT UNIX_TIMESTAMP(timestamp) DIV 60 * 60 AS "time", COUNT(*) FROM request GROUP BY 1 ORDER BY 1
SELECT timestamp DIV 60 * 60 AS "time", AVG(value) * 1000 AS "timer ms" FROM timer t JOIN request r ON r.id = t.request_id GROUP BY 1 ORDER BY 1
SELECT r.timestamp DIV 60 * 60 AS "time", tt.value AS metric, SUM(t.value) AS value FROM timer t JOIN request r ON r.id = t.request_id JOIN timertag tt ON tt.timer_id = t.id JOIN tag g ON g.id = tt.tag_id WHERE g.name = 'group' GROUP BY 1, 2 ORDER BY 1, 2
SELECT timestamp DIV 60 * 60 AS "time", SUM(CASE WHEN req_time > 0.5 THEN 1 ELSE 0 END) AS slow, SUM(CASE WHEN req_time <= 0.5 THEN 1 ELSE 0 END) AS fast FROM request GROUP BY 1 ORDER BY 1
SELECT timestamp DIV 60 * 60 AS "time", SUM(mem_peak_usage) / 1024 AS "MB" FROM request GROUP BY 1 ORDER BY 1
SELECT 1 AS "time", 2 AS value
SELECT timestamp DIV 60 * 60 AS "time", (SUM(req_time) / COUNT(*)) * 1000 AS "ms" FROM request WHERE script_name = '/index.php' AND timestamp >= 1600000000 AND timestamp <= 2100000000 GROUP BY 1 ORDER BY 1
-- Metabase: sync (Connector/J metadata), field values, fingerprints, question builder (date truncation, binning, count distinct)
SHOW FULL TABLES FROM `pinba` LIKE 'request'
SELECT TRUE AS `_`
SELECT `pinba`.`request`.`hostname` AS `hostname` FROM `pinba`.`request` GROUP BY `pinba`.`request`.`hostname` ORDER BY `pinba`.`request`.`hostname` ASC LIMIT 1000
SELECT `pinba`.`request`.`status` AS `status` FROM `pinba`.`request` GROUP BY `pinba`.`request`.`status` ORDER BY `pinba`.`request`.`status` ASC LIMIT 1000
SELECT `pinba`.`request`.`script_name` AS `script_name`, `pinba`.`request`.`req_time` AS `req_time` FROM `pinba`.`request` LIMIT 10000
SELECT count(*) AS `count` FROM `pinba`.`request`
SELECT count(distinct `pinba`.`request`.`hostname`) AS `count` FROM `pinba`.`request`
SELECT `pinba`.`request`.`hostname` AS `hostname`, count(*) AS `count` FROM `pinba`.`request` GROUP BY `pinba`.`request`.`hostname` ORDER BY `pinba`.`request`.`hostname` ASC
SELECT `pinba`.`request`.`status` AS `status`, avg(`pinba`.`request`.`req_time`) AS `avg` FROM `pinba`.`request` GROUP BY `pinba`.`request`.`status` ORDER BY `pinba`.`request`.`status` ASC
SELECT `pinba`.`request`.`hostname` AS `hostname`, sum(`pinba`.`request`.`doc_size`) AS `sum`, max(`pinba`.`request`.`req_time`) AS `max` FROM `pinba`.`request` GROUP BY `pinba`.`request`.`hostname` ORDER BY `sum` DESC, `pinba`.`request`.`hostname` ASC
SELECT date(from_unixtime(`pinba`.`request`.`timestamp`)) AS `timestamp`, count(*) AS `count` FROM `pinba`.`request` GROUP BY date(from_unixtime(`pinba`.`request`.`timestamp`)) ORDER BY date(from_unixtime(`pinba`.`request`.`timestamp`)) ASC
SELECT str_to_date(date_format(from_unixtime(`pinba`.`request`.`timestamp`), '%Y-%m-%d %H'), '%Y-%m-%d %H') AS `timestamp`, count(*) AS `count` FROM `pinba`.`request` GROUP BY str_to_date(date_format(from_unixtime(`pinba`.`request`.`timestamp`), '%Y-%m-%d %H'), '%Y-%m-%d %H') ORDER BY 1 ASC
SELECT str_to_date(date_format(from_unixtime(`pinba`.`request`.`timestamp`), '%Y-%m-%d %H:%i'), '%Y-%m-%d %H:%i') AS `timestamp`, count(*) AS `count` FROM `pinba`.`request` GROUP BY 1 ORDER BY 1 ASC
SELECT str_to_date(concat(date_format(from_unixtime(`pinba`.`request`.`timestamp`), '%Y-%m'), '-01'), '%Y-%m-%d') AS `timestamp`, count(*) AS `count` FROM `pinba`.`request` GROUP BY 1 ORDER BY 1 ASC
SELECT str_to_date(concat(year(from_unixtime(`pinba`.`request`.`timestamp`)), '-01-01'), '%Y-%m-%d') AS `timestamp`, count(*) AS `count` FROM `pinba`.`request` GROUP BY 1 ORDER BY 1 ASC
SELECT str_to_date(concat(year(from_unixtime(`pinba`.`request`.`timestamp`)), '-', ((quarter(from_unixtime(`pinba`.`request`.`timestamp`)) * 3) - 2), '-01'), '%Y-%m-%d') AS `timestamp`, count(*) AS `count` FROM `pinba`.`request` GROUP BY 1 ORDER BY 1 ASC
SELECT str_to_date(concat(yearweek(from_unixtime(`pinba`.`request`.`timestamp`)), ' Sunday'), '%X%V %W') AS `timestamp`, count(*) AS `count` FROM `pinba`.`request` GROUP BY 1 ORDER BY 1 ASC
SELECT date(date_add(from_unixtime(`pinba`.`request`.`timestamp`), INTERVAL -(dayofweek(from_unixtime(`pinba`.`request`.`timestamp`)) - 1) day)) AS `timestamp`, count(*) AS `count` FROM `pinba`.`request` GROUP BY 1 ORDER BY 1 ASC
SELECT dayofweek(from_unixtime(`pinba`.`request`.`timestamp`)) AS `timestamp`, count(*) AS `count` FROM `pinba`.`request` GROUP BY 1 ORDER BY 1 ASC
SELECT (floor(((`pinba`.`request`.`req_time` - 0.0) / 0.25)) * 0.25) + 0.0 AS `req_time`, count(*) AS `count` FROM `pinba`.`request` GROUP BY (floor(((`pinba`.`request`.`req_time` - 0.0) / 0.25)) * 0.25) + 0.0 ORDER BY 1 ASC
SELECT (floor(((`pinba`.`request`.`doc_size` - 0) / 10)) * 10) + 0 AS `doc_size`, count(*) AS `count` FROM `pinba`.`request` GROUP BY 1 ORDER BY 1 ASC
SELECT `pinba`.`request`.`id` AS `id`, `pinba`.`request`.`hostname` AS `hostname`, `pinba`.`request`.`req_time` AS `req_time` FROM `pinba`.`request` WHERE (`pinba`.`request`.`status` = 200 AND `pinba`.`request`.`req_time` > 0.5) ORDER BY `pinba`.`request`.`id` ASC LIMIT 2000
SELECT `pinba`.`request`.`script_name` AS `script_name`, count(*) AS `count` FROM `pinba`.`request` WHERE `pinba`.`request`.`script_name` LIKE concat('%', 'api', '%') GROUP BY 1 ORDER BY 2 DESC, 1 ASC LIMIT 10
SELECT `pinba`.`request`.`hostname` AS `hostname`, count(*) AS `count` FROM `pinba`.`request` WHERE (`pinba`.`request`.`hostname` = 'h0' OR `pinba`.`request`.`hostname` = 'h1') GROUP BY 1 ORDER BY 1 ASC
SELECT `pinba`.`request`.`status` AS `status`, `pinba`.`request`.`hostname` AS `hostname`, count(*) AS `count` FROM `pinba`.`request` GROUP BY 1, 2 ORDER BY 1 ASC, 2 ASC
SELECT `source`.`hostname` AS `hostname`, `source`.`n` AS `n` FROM (SELECT hostname, COUNT(*) AS n FROM request GROUP BY hostname) `source` LIMIT 2000
SELECT `source`.`st` AS `st`, count(*) AS `count` FROM (SELECT status AS st FROM request WHERE req_time > 0.1) `source` GROUP BY `source`.`st` ORDER BY `source`.`st` ASC
SELECT count(*) AS `count` FROM `pinba`.`request` WHERE from_unixtime(`pinba`.`request`.`timestamp`) >= str_to_date('2020-01-01', '%Y-%m-%d')
SELECT count(*) AS `count` FROM `pinba`.`request` WHERE `pinba`.`request`.`hostname` IS NOT NULL AND (`pinba`.`request`.`hostname` <> '' OR `pinba`.`request`.`hostname` IS NULL)
SELECT count(*) AS `count` FROM `pinba`.`request` WHERE (`pinba`.`request`.`schema` IS NULL OR `pinba`.`request`.`schema` = '')
SELECT avg(`pinba`.`request`.`req_time`) AS `avg`, stddev_pop(`pinba`.`request`.`req_time`) AS `stddev`, min(`pinba`.`request`.`req_time`) AS `min`, max(`pinba`.`request`.`req_time`) AS `max` FROM `pinba`.`request`
SELECT count(distinct `pinba`.`request`.`script_name`) AS `distinct`, sum(CASE WHEN `pinba`.`request`.`script_name` IS NULL THEN 1 ELSE 0 END) AS `nil`, avg(char_length(`pinba`.`request`.`script_name`)) AS `avglen` FROM `pinba`.`request`
SELECT count(distinct `pinba`.`timer`.`request_id`) AS `count` FROM `pinba`.`timer` WHERE `pinba`.`timer`.`hit_count` > 1
SELECT `Timertag`.`value` AS `Timertag__value`, sum(`pinba`.`timer`.`value`) AS `sum` FROM `pinba`.`timer` LEFT JOIN `pinba`.`timertag` `Timertag` ON `pinba`.`timer`.`id` = `Timertag`.`timer_id` GROUP BY `Timertag`.`value` ORDER BY `Timertag`.`value` ASC
SELECT `Request`.`hostname` AS `Request__hostname`, count(*) AS `count` FROM `pinba`.`timer` LEFT JOIN `pinba`.`request` `Request` ON `pinba`.`timer`.`request_id` = `Request`.`id` GROUP BY `Request`.`hostname` ORDER BY `Request`.`hostname` ASC
SELECT cast(from_unixtime(`pinba`.`request`.`timestamp`) AS date) AS `d`, count(*) AS `count` FROM `pinba`.`request` GROUP BY cast(from_unixtime(`pinba`.`request`.`timestamp`) AS date) ORDER BY `d` ASC
-- Superset: time grains as its MySQL engine spec writes them, virtual tables, LIMIT 10000
SELECT DATE_ADD(DATE(FROM_UNIXTIME(timestamp)), INTERVAL (HOUR(FROM_UNIXTIME(timestamp))*60 + MINUTE(FROM_UNIXTIME(timestamp))) MINUTE) AS __timestamp, COUNT(*) AS count FROM pinba.request GROUP BY DATE_ADD(DATE(FROM_UNIXTIME(timestamp)), INTERVAL (HOUR(FROM_UNIXTIME(timestamp))*60 + MINUTE(FROM_UNIXTIME(timestamp))) MINUTE) ORDER BY __timestamp LIMIT 10000
SELECT DATE_ADD(DATE(FROM_UNIXTIME(timestamp)), INTERVAL HOUR(FROM_UNIXTIME(timestamp)) HOUR) AS __timestamp, AVG(req_time) AS `AVG(req_time)` FROM pinba.request GROUP BY 1 ORDER BY 1 LIMIT 10000
SELECT DATE_ADD(DATE(FROM_UNIXTIME(timestamp)), INTERVAL (HOUR(FROM_UNIXTIME(timestamp))*60*60 + MINUTE(FROM_UNIXTIME(timestamp))*60 + SECOND(FROM_UNIXTIME(timestamp))) SECOND) AS __timestamp, COUNT(*) AS count FROM pinba.request GROUP BY 1 ORDER BY 1 LIMIT 5
SELECT DATE(FROM_UNIXTIME(timestamp)) AS __timestamp, hostname AS hostname, COUNT(*) AS count FROM pinba.request GROUP BY DATE(FROM_UNIXTIME(timestamp)), hostname ORDER BY count DESC, hostname LIMIT 10000
SELECT DATE(DATE_SUB(FROM_UNIXTIME(timestamp), INTERVAL DAYOFWEEK(FROM_UNIXTIME(timestamp)) - 1 DAY)) AS __timestamp, COUNT(*) AS count FROM pinba.request GROUP BY 1 ORDER BY 1
SELECT DATE(DATE_SUB(FROM_UNIXTIME(timestamp), INTERVAL DAYOFMONTH(FROM_UNIXTIME(timestamp)) - 1 DAY)) AS __timestamp, COUNT(*) AS count FROM pinba.request GROUP BY 1 ORDER BY 1
SELECT MAKEDATE(YEAR(FROM_UNIXTIME(timestamp)), 1) + INTERVAL QUARTER(FROM_UNIXTIME(timestamp)) QUARTER - INTERVAL 1 QUARTER AS __timestamp, COUNT(*) AS count FROM pinba.request GROUP BY 1 ORDER BY 1
SELECT DATE(DATE_SUB(FROM_UNIXTIME(timestamp), INTERVAL DAYOFYEAR(FROM_UNIXTIME(timestamp)) - 1 DAY)) AS __timestamp, COUNT(*) AS count FROM pinba.request GROUP BY 1 ORDER BY 1
SELECT DATE(DATE_SUB(FROM_UNIXTIME(timestamp), INTERVAL DAYOFWEEK(DATE_SUB(FROM_UNIXTIME(timestamp), INTERVAL 1 DAY)) - 1 DAY)) AS __timestamp, COUNT(*) AS count FROM pinba.request GROUP BY 1 ORDER BY 1
SELECT DATE_ADD(DATE(FROM_UNIXTIME(1764331509)), INTERVAL (HOUR(FROM_UNIXTIME(1764331509))*60 + MINUTE(FROM_UNIXTIME(1764331509))) MINUTE), MAKEDATE(2026, 1) + INTERVAL 4 QUARTER - INTERVAL 1 QUARTER, DATE(DATE_SUB('2026-11-28 10:00:00', INTERVAL DAYOFWEEK('2026-11-28 10:00:00') - 1 DAY))
SELECT hostname AS hostname, count(*) AS count FROM (SELECT * FROM request WHERE status = 200) AS virtual_table GROUP BY hostname ORDER BY count DESC, hostname LIMIT 10000
SELECT script_name AS script_name, AVG(req_time) AS `AVG(req_time)`, MAX(req_time) AS `MAX(req_time)` FROM (SELECT script_name, req_time FROM request) AS virtual_table GROUP BY script_name ORDER BY `AVG(req_time)` DESC LIMIT 10000
SELECT `hostname` AS `hostname`, count(*) AS `count` FROM `pinba`.`request` GROUP BY `hostname` ORDER BY `count` DESC, `hostname` LIMIT 10000
SELECT `status` AS `status` FROM `pinba`.`request` GROUP BY `status` ORDER BY `status` LIMIT 1000
SELECT COUNT(*) AS count FROM pinba.request WHERE hostname IN ('h0', 'h3') AND FROM_UNIXTIME(timestamp) >= STR_TO_DATE('2020-01-01 00:00:00.000000', '%Y-%m-%d %H:%i:%s.%f') AND FROM_UNIXTIME(timestamp) < STR_TO_DATE('2037-01-01 00:00:00.000000', '%Y-%m-%d %H:%i:%s.%f')
SELECT SUM(req_time) AS `SUM(req_time)` FROM pinba.request LIMIT 50000
SELECT hostname AS hostname, status AS status, COUNT(*) AS count FROM pinba.request JOIN (SELECT hostname AS hostname__, COUNT(*) AS mme_inner__ FROM pinba.request GROUP BY hostname ORDER BY mme_inner__ DESC LIMIT 3) AS anon_1 ON hostname = hostname__ GROUP BY hostname, status ORDER BY count DESC, hostname, status LIMIT 10000
SELECT * FROM request LIMIT 101
SELECT CAST(FROM_UNIXTIME(timestamp) AS DATE) AS day, COUNT(*) FROM request GROUP BY day ORDER BY day
-- Redash: schema browser, query results with LIMIT, cross-tab with SUM(CASE)
SELECT col.table_schema AS table_schema, col.table_name AS table_name, col.column_name AS column_name FROM `information_schema`.`columns` col WHERE col.table_schema = 'pinba' AND col.table_name IN ('request', 'timer', 'timertag', 'tag') ORDER BY col.table_name, col.ordinal_position
SELECT hostname, SUM(CASE WHEN status = 200 THEN 1 ELSE 0 END) AS `200`, SUM(CASE WHEN status = 404 THEN 1 ELSE 0 END) AS `404`, SUM(CASE WHEN status = 500 THEN 1 ELSE 0 END) AS `500` FROM request GROUP BY hostname ORDER BY hostname
SELECT script_name, COUNT(*) AS hits, SUM(req_time) AS total_time, SUM(req_time) / SUM(SUM(req_time)) OVER () * 100 AS pct FROM request GROUP BY script_name ORDER BY total_time DESC
SELECT DATE_FORMAT(FROM_UNIXTIME(timestamp), '%Y-%m-%dT%H:%i:00') AS ts, COUNT(*) AS n FROM request GROUP BY ts ORDER BY ts
SELECT DATE_FORMAT(FROM_UNIXTIME(timestamp), '%x-W%v') AS week, COUNT(*) FROM request GROUP BY week ORDER BY week
SELECT hostname, COUNT(*) AS n, COUNT(*) * 100.0 / (SELECT COUNT(*) FROM request) AS pct FROM request GROUP BY hostname ORDER BY n DESC, hostname
SELECT hostname, ROUND(COUNT(*) * 100.0 / SUM(COUNT(*)) OVER (), 2) AS pct FROM request GROUP BY hostname ORDER BY hostname
SELECT status, COUNT(*) AS n, CAST(COUNT(*) AS DECIMAL(10,2)) / (SELECT COUNT(*) FROM request) AS frac FROM request GROUP BY status ORDER BY status
SELECT CASE WHEN doc_size < 10 THEN 'a: <10KB' WHEN doc_size < 50 THEN 'b: 10-50KB' WHEN doc_size < 100 THEN 'c: 50-100KB' ELSE 'd: 100KB+' END AS `size`, COUNT(*) AS `count` FROM request GROUP BY 1 ORDER BY 1
SELECT CASE status DIV 100 WHEN 2 THEN 'success' WHEN 3 THEN 'redirect' WHEN 4 THEN 'client error' WHEN 5 THEN 'server error' ELSE 'other' END AS `class`, COUNT(*) FROM request GROUP BY 1 ORDER BY 2 DESC, 1
SELECT ELT(INTERVAL(req_time, 0.1, 0.25, 0.5, 1, 2) + 1, '<100ms', '100-250ms', '250-500ms', '0.5-1s', '1-2s', '>2s') AS bucket, COUNT(*) FROM request GROUP BY bucket ORDER BY MIN(req_time)
SELECT INTERVAL(status, 200, 300, 400, 500) AS k, COUNT(*) FROM request GROUP BY k ORDER BY k
-- Zeppelin (%jdbc) and notebook-style exploration
SELECT hostname, script_name, COUNT(*) cnt, AVG(req_time) avg_t FROM request GROUP BY hostname, script_name ORDER BY cnt DESC, hostname, script_name LIMIT 1000
SELECT percentile.* FROM (SELECT req_time, PERCENT_RANK() OVER (ORDER BY req_time) AS pr FROM request) percentile WHERE pr >= 0.95 ORDER BY req_time LIMIT 1
SELECT req_time FROM (SELECT req_time, ROW_NUMBER() OVER (ORDER BY req_time) AS rn, COUNT(*) OVER () AS n FROM request) t WHERE rn = CEIL(0.95 * n)
SELECT script_name, req_time FROM (SELECT script_name, req_time, ROW_NUMBER() OVER (PARTITION BY script_name ORDER BY req_time) AS rn, COUNT(*) OVER (PARTITION BY script_name) AS n FROM request) t WHERE rn = CEIL(0.5 * n) ORDER BY script_name
SELECT id, req_time, CUME_DIST() OVER (ORDER BY req_time) AS cd FROM request ORDER BY id LIMIT 10
SELECT id, req_time, LAG(req_time) OVER (ORDER BY id) AS prev, LEAD(req_time, 2) OVER (ORDER BY id) AS next2 FROM request ORDER BY id LIMIT 10
-- Connector/J at connect (its SELECT @@ of the session's settings; the server's own left out), then what JDBC apps and pools send
/* mysql-connector-java-8.0.33 (Revision: 7d6b0800528b6b25c68b52dc10d6c1c8429c100c) */SELECT @@session.auto_increment_increment AS auto_increment_increment, @@character_set_client AS character_set_client, @@character_set_connection AS character_set_connection, @@character_set_results AS character_set_results, @@collation_connection AS collation_connection, @@sql_mode AS sql_mode
SET character_set_results = NULL
SET character_set_results = utf8mb4
SET autocommit=1
SET sql_mode='STRICT_TRANS_TABLES'
SELECT @@sql_mode
SET sql_mode = DEFAULT
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED
SET SESSION TRANSACTION READ ONLY
SET SESSION TRANSACTION READ WRITE
SELECT @@session.autocommit
SET NAMES utf8mb4 COLLATE utf8mb4_general_ci
SET NAMES 'utf8mb4' COLLATE 'utf8mb4_general_ci'
/* ping */ SELECT 1
SELECT 1 FROM DUAL WHERE 1 = 1
SELECT 'x' AS `dummy` FROM DUAL
SET net_write_timeout = 600
SET SQL_SELECT_LIMIT = DEFAULT
SET SQL_SELECT_LIMIT = 3
SELECT id FROM request ORDER BY id
SET SQL_SELECT_LIMIT = DEFAULT
SELECT id FROM request ORDER BY id LIMIT 4
-- MySQL Connector/Python, PyMySQL, mysqlclient: connect and parameters quoted as Python's converters write them
SET @@session.autocommit = OFF
SET @@session.autocommit = ON
SELECT @@session.autocommit AS ac
SET NAMES utf8mb4
SET AUTOCOMMIT = 0
SET AUTOCOMMIT = 1
SELECT COUNT(*) FROM request WHERE hostname = 'h1' AND req_time > 0.25
SELECT COUNT(*) FROM request WHERE req_time > 0.25e0 AND doc_size < 100
SELECT COUNT(*) FROM request WHERE timestamp >= 1600000000 AND script_name IN ('/index.php','/api/list.php','/admin/edit.php')
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) >= '2020-01-01 00:00:00.000000'
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) >= '2020-01-01 00:00:00' AND FROM_UNIXTIME(timestamp) < '2037-01-01 00:00:00'
SELECT COUNT(*) FROM request WHERE DATE(FROM_UNIXTIME(timestamp)) BETWEEN '2020-01-01' AND '2037-12-31'
SELECT id, hostname FROM request WHERE hostname = 'h\'1' OR hostname = 'h\\1' ORDER BY id
SELECT COUNT(*) FROM request WHERE schema IS NULL
SELECT COUNT(*) FROM request WHERE status = 200 AND hostname = 'h0' AND 1
SELECT id, status FROM request WHERE id IN (1, 2, 3, 5, 8, 13) ORDER BY id
SELECT COUNT(*) FROM request WHERE id IN (NULL)
SELECT COUNT(*) FROM request WHERE script_name LIKE '/api/%%'
-- Go's go-sql-driver (interpolateParams: numbers bare, strings quoted, time.Time as '2006-01-02 15:04:05.999999'), sqlx
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) > '2020-01-01 00:00:00.123456'
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) BETWEEN '2020-01-01 00:00:00' AND '2036-01-01 00:00:00.5'
SELECT id, hostname, script_name, status, req_time, timestamp FROM request WHERE status = 500 ORDER BY id LIMIT 100 OFFSET 0
SELECT id, req_time FROM request WHERE id > 10 ORDER BY id LIMIT 5
SELECT EXISTS(SELECT 1 FROM request WHERE hostname = 'h1')
SELECT EXISTS(SELECT 1 FROM request WHERE hostname = 'nope') AS present
SELECT COUNT(*) > 0 FROM request WHERE status >= 500
SELECT CAST(COUNT(*) AS UNSIGNED) FROM request
SELECT IFNULL(SUM(req_time), 0.0) FROM request WHERE hostname = 'h1'
SELECT COALESCE(AVG(req_time), 0) FROM request WHERE status = 999
-- PHP mysqli and PDO (ATTR_EMULATE_PREPARES: every parameter a quoted string, LIMIT as an int bound)
SELECT * FROM request WHERE id = '5'
SELECT * FROM request WHERE hostname = 'h1' AND status = '200' ORDER BY id LIMIT 0, 5
SELECT COUNT(*) AS c FROM request WHERE script_name = '/index.php' AND timestamp > '1600000000'
SELECT COUNT(*) FROM request WHERE req_time BETWEEN '0.1' AND '0.5'
SELECT COUNT(*) FROM request WHERE req_time > '0.1' + 0
SELECT COUNT(*) FROM request WHERE status IN ('200', '301', '302')
SELECT COUNT(*) FROM request WHERE status = ''
SELECT COUNT(*) FROM request WHERE hostname = 1
SELECT COUNT(*) FROM request WHERE id >= '1' AND id < '1e1'
SELECT COUNT(*) FROM request WHERE timestamp >= '1.6e9'
SELECT id FROM request WHERE script_name = '/index.php' ORDER BY id DESC LIMIT 1
SELECT id FROM request WHERE status = 200 ORDER BY id LIMIT 3
SELECT FOUND_ROWS()
SELECT COUNT(*) FROM request WHERE hostname LIKE 'h%' AND script_name LIKE '%.php'
SELECT COUNT(*) FROM request WHERE hostname LIKE '%'
SELECT COUNT(*) FROM request WHERE script_name LIKE '%\\%%'
SELECT LAST_INSERT_ID()
SELECT ROW_COUNT()
SELECT COUNT(*) FROM request WHERE status = "200"
SELECT `status`, COUNT(*) AS `cnt` FROM `request` WHERE `hostname` = "h0" GROUP BY `status` ORDER BY `status`
-- Perl DBI / DBD::mysql and DBD::MariaDB: placeholders quoted, quote_identifier's backticks, selectrow
SELECT `request`.`id` FROM `pinba`.`request` WHERE `request`.`status` = '404' ORDER BY `request`.`id` LIMIT 3
SELECT COUNT(*), SUM(`req_time`) FROM `request` WHERE `hostname` = 'h2'
SELECT MAX(`id`) FROM `request`
SELECT hostname, COUNT(*) FROM request WHERE timestamp >= '1600000000' GROUP BY hostname ORDER BY hostname
SELECT 'DBD::mysql' AS drv, 1 + '1' AS two
-- Node mysql2 and Knex (escape(): strings quoted, Dates as 'YYYY-MM-DD HH:MM:SS.mmm', booleans true/false, arrays as lists)
SELECT 1 + 1 AS solution
SELECT * FROM `request` WHERE `hostname` = 'h1' AND `status` IN (200, 404) ORDER BY `id` ASC LIMIT 5
SELECT COUNT(*) AS `count` FROM `request` WHERE FROM_UNIXTIME(`timestamp`) > '2020-01-01 00:00:00.000'
SELECT COUNT(*) AS `count` FROM `request` WHERE (status >= 500) = true
SELECT COUNT(*) AS `count` FROM `request` WHERE (status >= 500) = false
SELECT `hostname`, COUNT(`id`) AS `n` FROM `request` GROUP BY `hostname` HAVING `n` > 1 ORDER BY `n` DESC, `hostname`
SELECT `script_name` FROM `request` WHERE `script_name` LIKE '%api%' GROUP BY `script_name` ORDER BY `script_name` ASC
SELECT DISTINCT `hostname` FROM `request` ORDER BY `hostname` ASC LIMIT 10 OFFSET 1
SELECT `r`.`id`, `t`.`value` FROM `request` AS `r` INNER JOIN `timer` AS `t` ON `t`.`request_id` = `r`.`id` ORDER BY `r`.`id` ASC, `t`.`id` ASC LIMIT 10
SELECT COUNT(*) AS `c` FROM `timer` WHERE `request_id` IN (SELECT `id` FROM `request` WHERE `status` = 200)
-- Nagios/Zabbix/Munin checks over the raw tables: one number a line, thresholds in SQL
SELECT COUNT(*) FROM request WHERE status >= 500
SELECT IFNULL(ROUND(AVG(req_time) * 1000), 0) FROM request WHERE script_name = '/index.php'
SELECT IF(COUNT(*) = 0, 0, ROUND(SUM(status >= 500) / COUNT(*) * 100, 2)) AS err_pct FROM request
SELECT CASE WHEN MAX(req_time) > 2 THEN 2 WHEN MAX(req_time) > 1 THEN 1 ELSE 0 END AS nagios_state FROM request
SELECT CONCAT('OK - ', COUNT(*), ' requests, avg ', ROUND(AVG(req_time), 3), 's') AS msg FROM request
SELECT CONCAT(IF(SUM(status >= 500) > 10, 'CRITICAL', 'OK'), ': ', SUM(status >= 500), ' errors') FROM request
SELECT hostname, COUNT(*) FROM request GROUP BY hostname HAVING COUNT(*) < 5 ORDER BY hostname
SELECT ROUND(SUM(req_time) / COUNT(*), 4) AS avg_time, ROUND(SUM(ru_utime) / COUNT(*), 4) AS avg_utime, ROUND(SUM(ru_stime) / COUNT(*), 4) AS avg_stime FROM request
SELECT ROUND(COUNT(*) / (MAX(timestamp) - MIN(timestamp) + 1), 2) AS req_per_sec FROM request
SELECT ROUND(SUM(doc_size) / (MAX(timestamp) - MIN(timestamp) + 1), 2) AS kb_per_sec FROM request
SELECT MAX(mem_peak_usage), ROUND(AVG(mem_peak_usage), 1), MIN(mem_peak_usage) FROM request
SELECT COUNT(*) AS slow FROM request WHERE req_time > 1.0
SELECT COUNT(*) FROM request WHERE req_time > 0.5 AND script_name NOT LIKE '%cron%'
SELECT script_name, ROUND(MAX(req_time), 3) FROM request GROUP BY script_name HAVING MAX(req_time) > 1 ORDER BY 2 DESC
SELECT COUNT(DISTINCT hostname) AS hosts_alive FROM request WHERE timestamp > 1600000000
SELECT hostname, MAX(timestamp) AS last_seen FROM request GROUP BY hostname ORDER BY hostname
SELECT hostname, FROM_UNIXTIME(MAX(timestamp)) AS last_seen FROM request GROUP BY hostname ORDER BY hostname
SELECT status, COUNT(*) FROM request WHERE status NOT IN (200, 301, 302, 304) GROUP BY status ORDER BY status
SELECT SUM(timers_cnt), SUM(tags_cnt), AVG(timers_cnt) FROM request
SELECT COUNT(*) FROM timer WHERE value > 0.1
SELECT tg.name, COUNT(*) AS timers FROM timertag tt JOIN tag tg ON tg.id = tt.tag_id GROUP BY tg.name ORDER BY tg.name
SELECT tt.value AS op, ROUND(AVG(t.value / t.hit_count) * 1000, 3) AS avg_ms, SUM(t.hit_count) AS hits FROM timer t JOIN timertag tt ON tt.timer_id = t.id JOIN tag g ON g.id = tt.tag_id WHERE g.name = 'op' GROUP BY tt.value ORDER BY avg_ms DESC, op
SELECT ROUND(MAX(t.value), 4) FROM timer t JOIN timertag tt ON tt.timer_id = t.id WHERE tt.value = 'get'
SELECT COUNT(*) FROM request r WHERE NOT EXISTS (SELECT 1 FROM timer t WHERE t.request_id = r.id)
SELECT r.id, COUNT(t.id) AS n FROM request r LEFT JOIN timer t ON t.request_id = r.id GROUP BY r.id HAVING n <> MAX(r.timers_cnt) ORDER BY r.id LIMIT 5
-- Excel / MS Query / ODBC: table aliases of the table's own name, ODBC escapes ({fn}, {d}, {ts}, {oj}), parenthesized WHERE
SELECT request.hostname, request.status, request.req_time FROM pinba.request request WHERE (request.status=200) ORDER BY request.id LIMIT 5
SELECT request.hostname, Count(request.id) AS 'CountOfid' FROM pinba.request request GROUP BY request.hostname ORDER BY request.hostname
SELECT request.script_name, Sum(request.req_time) AS 'SumOfreq_time', Avg(request.req_time) AS 'AvgOfreq_time' FROM request request GROUP BY request.script_name ORDER BY request.script_name
SELECT request.id, request.hostname FROM request request WHERE (request.hostname='h1') AND (request.status>=400) ORDER BY request.id
SELECT {fn UCASE(hostname)} AS h, {fn LCASE('ABC')} FROM request ORDER BY id LIMIT 2
SELECT {fn CONCAT(hostname, script_name)} FROM request ORDER BY id LIMIT 2
SELECT {d '2026-11-28'}, {ts '2026-11-28 10:20:30'}, {t '10:20:30'}
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) > {ts '2020-01-01 00:00:00'}
SELECT COUNT(*) FROM request WHERE DATE(FROM_UNIXTIME(timestamp)) >= {d '2020-01-01'}
SELECT UCASE(hostname), LCASE(script_name), {fn LENGTH(script_name)} FROM request ORDER BY id LIMIT 3
SELECT request.status, Count(*) FROM request request WHERE (request.req_time Between 0.1 And 1) GROUP BY request.status ORDER BY request.status
SELECT `request`.`hostname`, `request`.`status` FROM `pinba`.`request` `request` WHERE `request`.`id` < 4 ORDER BY `request`.`id`
SELECT DAYOFMONTH(FROM_UNIXTIME(timestamp)), MONTH(FROM_UNIXTIME(timestamp)), YEAR(FROM_UNIXTIME(timestamp)) FROM request ORDER BY id LIMIT 1
-- The mysql prompt: what an engineer types while looking at a slow page
SELECT * FROM request WHERE req_time = (SELECT MAX(req_time) FROM request)
SELECT id, script_name, req_time FROM request WHERE req_time >= ALL (SELECT req_time FROM request)
SELECT r.*, (SELECT COUNT(*) FROM timer t WHERE t.request_id = r.id) AS timers FROM request r ORDER BY r.req_time DESC, r.id LIMIT 3
SELECT t.*, tt.value, g.name FROM timer t JOIN timertag tt ON tt.timer_id = t.id JOIN tag g ON g.id = tt.tag_id WHERE t.request_id = (SELECT id FROM request ORDER BY req_time DESC, id LIMIT 1) ORDER BY t.id, g.name
SELECT script_name, COUNT(*) c, SUM(req_time) s, AVG(req_time) a, MAX(req_time) m FROM request GROUP BY 1 ORDER BY s DESC LIMIT 10
SELECT hostname, server_name, COUNT(*) FROM request GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2
SELECT status, COUNT(*), ROUND(AVG(req_time)*1000) ms FROM request GROUP BY status
SELECT req_time FROM request ORDER BY req_time DESC LIMIT 1 OFFSET 5
SELECT COUNT(*), COUNT(schema), COUNT(DISTINCT schema), COUNT(DISTINCT tags) FROM request
SELECT tags, COUNT(*) FROM request GROUP BY tags ORDER BY 2 DESC, 1 LIMIT 5
SELECT SUBSTRING_INDEX(SUBSTRING_INDEX(tags, ',', 1), '=', -1) AS first_tag_value, COUNT(*) FROM request GROUP BY 1 ORDER BY 1
SELECT id, tags FROM request WHERE tags LIKE '%=%' ORDER BY id LIMIT 3
SELECT id, tags, FIND_IN_SET('env=prod', tags) FROM request ORDER BY id LIMIT 3
SELECT script_name, LENGTH(script_name) - LENGTH(REPLACE(script_name, '/', '')) AS depth FROM request GROUP BY script_name ORDER BY depth, script_name
SELECT SUBSTRING_INDEX(script_name, '.', -1) AS ext, COUNT(*) FROM request GROUP BY ext ORDER BY ext
SELECT DISTINCT LOWER(SUBSTRING_INDEX(server_name, '.', -2)) AS domain FROM request ORDER BY 1
SELECT hostname, MIN(id), MAX(id), MAX(id) - MIN(id) + 1 - COUNT(*) AS gaps FROM request GROUP BY hostname ORDER BY hostname
SELECT id, req_time, ru_utime, ru_stime, req_time - ru_utime - ru_stime AS wait FROM request ORDER BY wait DESC, id LIMIT 5
SELECT id, ROUND(ru_utime / NULLIF(req_time, 0) * 100, 1) AS cpu_pct FROM request ORDER BY id LIMIT 5
SELECT id, doc_size, mem_peak_usage, memory_footprint FROM request WHERE mem_peak_usage > memory_footprint ORDER BY id LIMIT 5
SET @h = 'h1'
SELECT COUNT(*) FROM request WHERE hostname = @h
SET @since = 1600000000, @limit_ms = 500
SELECT COUNT(*) FROM request WHERE timestamp > @since AND req_time * 1000 > @limit_ms
SELECT @n := COUNT(*) FROM request
SELECT @n * 2
SET @row := 0
SELECT @row := @row + 1 AS rn, id FROM request ORDER BY id LIMIT 5
SELECT SQL_NO_CACHE COUNT(*) FROM request
SELECT STRAIGHT_JOIN COUNT(*) FROM request r JOIN timer t ON t.request_id = r.id
SELECT HIGH_PRIORITY id FROM request ORDER BY id LIMIT 1
SELECT SQL_SMALL_RESULT status, COUNT(*) FROM request GROUP BY status ORDER BY status
SELECT COUNT(*) FROM request USE INDEX ()
SELECT id FROM request ORDER BY id DESC LIMIT 3 FOR UPDATE
SELECT CAST('12abc' AS SIGNED)
SHOW TABLES FROM pinba LIKE 't%'
SHOW TABLES LIKE 'timer%'
DESC timertag
DESCRIBE pinba.tag
EXPLAIN tag
SELECT COUNT(*) FROM pinba . request
SELECT COUNT(*) FROM `pinba`.request r WHERE r.`status`=200
SELECT COUNT(*) FROM request WHERE hostname = "h1" -- trailing comment
SELECT COUNT(*) FROM request # hash comment
SELECT /* inline */ COUNT(*) /* more */ FROM request
SELECT COUNT(*) FROM request;
-- phpMyAdmin and Adminer: browse a table, count it, its columns and keys
SELECT @@lower_case_table_names
SHOW SESSION VARIABLES LIKE 'FOREIGN_KEY_CHECKS'
SELECT COUNT(*) FROM `pinba`.`request`
SELECT * FROM `request` LIMIT 0, 25
SELECT * FROM `pinba`.`timer` ORDER BY `timer`.`value` DESC, `timer`.`id` ASC LIMIT 0, 25
SELECT * FROM `request` WHERE `hostname` LIKE '%h1%' ORDER BY `id` LIMIT 0, 25
SELECT * FROM `request` WHERE CONCAT_WS("", `hostname`, `script_name`) LIKE '%php%' ORDER BY `id` LIMIT 10
SELECT `status`, COUNT(*) AS `Count` FROM `request` GROUP BY `status` ORDER BY `Count` DESC, `status`
SELECT SQL_CALC_FOUND_ROWS * FROM `tag` LIMIT 50
SELECT * FROM `timertag` WHERE (`value` = 'get') LIMIT 50
SELECT `id`, `hostname` FROM `request` WHERE (`id` = '3') LIMIT 1
SHOW INDEXES FROM `request`
SELECT `TABLE_NAME`, `ENGINE` IS NOT NULL FROM `information_schema`.`TABLES` WHERE `TABLE_SCHEMA` = 'pinba' AND `TABLE_NAME` = 'tag'
SELECT `SCHEMA_NAME` FROM `information_schema`.`SCHEMATA` WHERE `SCHEMA_NAME` = 'pinba'
SELECT COUNT(*) FROM (SELECT 1 FROM `request` LIMIT 1000) x
SELECT DISTINCT `hostname` FROM `request` ORDER BY `hostname` LIMIT 1000
SELECT MIN(`id`), MAX(`id`) FROM `request`
SELECT `id`, LEFT(`script_name`, 10), `tags` FROM `request` ORDER BY `id` DESC LIMIT 3
-- Reduced (issue 80, round two): STR_TO_DATE reads a week and a weekday back to their day (Metabase's week: `%X%V %W`); `%V` wants `%X`, `%v` `%x`, `%U`/`%u` `%Y`
SELECT STR_TO_DATE('202648 Sunday', '%X%V %W'), STR_TO_DATE('202053 Sun', '%X%V %a'), STR_TO_DATE('2026 01 Mon', '%x %v %a'), STR_TO_DATE('2027 01 1', '%x %v %w'), STR_TO_DATE('2026 00 0', '%Y %U %w'), STR_TO_DATE('2026 00 Sat', '%Y %u %a')
SELECT STR_TO_DATE('2026 48 Sunday', '%Y %V %W'), STR_TO_DATE('2026 48 Sunday', '%X %v %W'), STR_TO_DATE('2026 54 Sunday', '%X %V %W'), STR_TO_DATE('2026 00 Sunday', '%X %V %W'), STR_TO_DATE('0000 01 Sunday', '%X %V %W'), STR_TO_DATE('2026 7', '%Y %w')
SELECT STR_TO_DATE('2026 48', '%X %V'), STR_TO_DATE('2026 12 Sunday 10:30', '%X %V %W %H:%i'), STR_TO_DATE('2026 100 1 Tue', '%Y %j %U %a'), STR_TO_DATE('9999 52 Sunday', '%X %V %W'), STR_TO_DATE('9999 53 Sunday', '%X %V %W')
-- A column qualified by its table is that table's, beside another table's of its name (`t.value`, timer's DOUBLE, beside timertag's `value`)
SELECT tt.value, ROUND(AVG(t.value) * 1000, 1) AS a FROM timer t JOIN timertag tt ON tt.timer_id = t.id GROUP BY tt.value ORDER BY tt.value
-- The boolean system variables: `@@x` 1 or 0, `SHOW VARIABLES` ON or OFF (phpMyAdmin reads FOREIGN_KEY_CHECKS there)
SELECT @@foreign_key_checks, @@unique_checks, @@sql_notes, @@sql_warnings, @@sql_big_selects, @@sql_quote_show_create, @@sql_buffer_result, @@sql_log_off
SHOW VARIABLES WHERE Variable_name IN ('autocommit', 'foreign_key_checks', 'unique_checks', 'sql_auto_is_null', 'sql_safe_updates', 'sql_notes', 'sql_warnings', 'sql_big_selects', 'sql_quote_show_create', 'sql_buffer_result', 'sql_log_off')
SET autocommit = 0
SHOW VARIABLES LIKE 'autocommit'
SET autocommit = 1
-- ODBC's `{fn f(…)}` is `f(…)`
SELECT {fn UCASE('abc')}, {fn CONCAT('a', 'b')}, {fn LENGTH(script_name)} FROM request ORDER BY id LIMIT 1
-- Dates and times (helper-31): a DATETIME or TIME with a fraction read as a number is the DECIMAL of its digits and fraction.
SELECT TIMESTAMP '2024-03-05 12:34:07.25' + 0, TIMESTAMP '2024-03-05 12:34:07.123456' + 0, ROUND(TIMESTAMP '2024-03-05 12:34:07.256', 2) * 2, TIME '12:34:07.5' * 2, MOD(TIMESTAMP '2024-03-05 12:34:07.25', 7), TIMESTAMP '2024-03-05 12:34:07.25' DIV 3, TIMESTAMP '2024-03-05 12:34:07.25' | 0
-- A temporal moved by a fraction of a second (or by microseconds) shows that many fraction digits.
SELECT TIME '12:34:56' + INTERVAL 1.5 SECOND, TIMESTAMP '2024-03-05 12:34:56' + INTERVAL 1.5 SECOND, DATE_ADD(TIME '12:34:56', INTERVAL 1.5 SECOND), DATE '2024-03-05' + INTERVAL 1.5 SECOND, TIME '12:34:56' + INTERVAL 1 MICROSECOND
-- A DATE rounded is a LONG of its 8 digits (9 where rounding to tens may carry).
SELECT ROUND(DATE '2024-03-05', 1), ROUND(DATE '2024-03-05'), ROUND(DATE '2024-03-05', -1), TRUNCATE(DATE '2024-03-05', 1), FLOOR(DATE '2024-03-05'), CEIL(DATE '2024-03-05')
-- A whole DATETIME times an integer past 64 bits overflows as a BIGINT does (error 1690).
=SELECT (-2147483648 * TIMESTAMP '2024-03-05 12:34:56')
=SELECT 1000000 * TIMESTAMP '2024-03-05 12:34:56'
-- SEC_TO_TIME reads a temporal's digits; HOUR, MINUTE and SECOND of a negative time are unsigned, EXTRACT's signed.
SELECT SEC_TO_TIME(DATE '2024-03-05'), SEC_TO_TIME(TIME '12:34:56'), SECOND(-7), MINUTE(TIME '-01:30:00'), HOUR(TIME '-01:30:00'), EXTRACT(SECOND FROM TIME '-01:30:05')
-- CAST to DATETIME or TIME cuts the fraction past its precision (none by default).
SELECT CAST(20240305123456.5 AS DATETIME), CAST('2024-03-05 12:34:56.7' AS DATETIME), CAST(TIMESTAMP '2024-03-05 12:34:56.7' AS DATETIME), CAST(0.5 AS DATETIME), CAST('2024-03-05 12:34:56.7' AS DATETIME(2)), CAST(20240305123456.5 AS DATETIME(1)), CAST(120000.5 AS TIME), CAST('12:00:00.7' AS TIME), CAST(CAST(1.5 AS TIME) AS SIGNED)
-- GREATEST and LEAST of a DATE or DATETIME among numbers or strings are of the temporal's type.
SELECT GREATEST(DATE '2026-11-28', 0.2), LEAST(DATE '2026-11-28', 0.2), GREATEST(1, TIMESTAMP '2024-03-05 12:34:56'), LEAST(1, TIMESTAMP '2024-03-05 12:34:56'), GREATEST('', DATE '1000-01-01'), LEAST('', DATE '1000-01-01'), GREATEST(CAST('2023-12-31' AS DATE), '')
SELECT GREATEST('', DATE '2024-03-05'), GREATEST(TIMESTAMP '9999-12-31 23:59:59', 1), 1e0 FROM request GROUP BY 1, 2
-- An aggregate in HAVING alone makes the query one group (one row or none), whatever the select list holds.
SELECT 1 FROM timer HAVING VAR_SAMP(1.5)
SELECT 1 AS x FROM timer WHERE 0 HAVING COUNT(*) = 0
SELECT id, value FROM timer HAVING COUNT(*) > 1
SELECT 2 AS i FROM timer t HAVING MAX(t.value) > 0
-- NULLIF of integers returns its first operand's type (BIGINT UNSIGNED kept) and compares exact values.
SELECT NULLIF(~0, -1), COALESCE(1, NULLIF(~0, 1)), NULLIF(~0, ~0), NULLIF(-1, ~0), NULLIF(5, CAST(5 AS UNSIGNED))
-- DIV whose quotient leaves a BIGINT is error 1690.
=SELECT 1.7976931348623157e308 DIV 0.1
=SELECT -9223372036854775808 DIV -1
SELECT 7 DIV 0, 7.5 DIV 0, -7.5 DIV 2, 1e18 DIV 0.5, 5 DIV 1e300, 0.5 DIV 1e300
-- A DOUBLE past a DECIMAL's 65 digits cast to DECIMAL(p, s) is the type's largest of its sign.
SELECT CAST(1.7976931348623157e308 AS DECIMAL(10, 2)), CAST(-1e300 AS DECIMAL(5,1)), CAST(1e70 AS DECIMAL(65, 0))
-- TRUE and FALSE are LONGs of 5 characters (MariaDB's Item_bool).
SELECT TRUE, FALSE + 0.5, CONCAT(TRUE), TRUE DIV 1, ROUND(FALSE, 10), -TRUE, TRUE + TRUE, IF(1, TRUE, FALSE)
SELECT ROUND(FALSE, 10) b, MIN(1) c, MIN(TRUE) d, MIN(FALSE) e FROM request
-- CRC32 and CONNECTION_ID are unsigned: arithmetic out of range is error 1690, merged with signed integers a DECIMAL.
=SELECT CRC32('') - 1
SELECT COALESCE(CRC32(''), NULL) a, IF(1, CRC32(''), NULL) b, IFNULL(CRC32(''), NULL) c, CASE WHEN 1 THEN CRC32('') ELSE NULL END d, COALESCE(CRC32(''), 1.5) f, COALESCE(CRC32(''), ~0) g, COALESCE(CRC32(''), CAST(1 AS UNSIGNED)) h, GREATEST(CRC32(''), tags_cnt) i, COALESCE(TRUE, CRC32('')) j, COALESCE(CRC32(''), CRC32('a')) k FROM request ORDER BY id LIMIT 1
SELECT CRC32('a') * 2, CRC32('a') > -1, -CRC32('a'), CRC32('a') DIV 2, GREATEST(CRC32('a'), 1), LEAST(CRC32(script_name), status) FROM request ORDER BY id LIMIT 3
-- Number literals are as long as written (a DECIMAL's leading zeros count); a zero negated stays as long.
SELECT -5, -0, -0.0e0, -1.5e0, -(5), -(0), -(-5), - 0.5, -1.5, -12.25, -0.05, -(-1.5), -.5, -00.5, -0.0, 0.5, -(0.5), -(-0.5), -0.00, -1.0e0, -0e0, -(-0), -(-1e0), 5.
-- Dates and times (helper-33): a TIME read as a date is today at that time (hours past 24 the days after, a negative TIME the day before).
SELECT CAST(TIME '12:34:56' AS DATE), CAST(TIME '-01:00:00' AS DATETIME), CAST(TIME '12:00:00.5' AS DATETIME(1)), DATE(TIME '30:00:00'), LAST_DAY(TIME '12:34:56'), YEAR(TIME '12:34:56'), MONTH(TIME '25:00:00'), QUARTER(TIME '12:34:56'), DAY(TIME '01:02:03'), DAYOFWEEK(TIME '-01:00:00'), WEEKDAY(TIME '12:00:00'), DAYOFYEAR(TIME '12:34:56')
SELECT WEEK(TIME '01:02:03'), YEARWEEK(TIME '01:02:03'), DAYNAME(TIME '01:02:03'), MONTHNAME(TIME '01:02:03'), TO_DAYS(TIME '12:00:00'), TO_SECONDS(TIME '01:02:03'), UNIX_TIMESTAMP(TIME '23:59:59'), DATEDIFF(TIME '12:00:00', DATE '2026-01-01'), TIMESTAMPDIFF(DAY, TIME '01:02:03', DATE '2026-01-01'), CONVERT_TZ(TIME '01:00:00', '+00:00', '+01:00')
SELECT MONTH(STR_TO_DATE('', '%h:%i %p')), DAYNAME(STR_TO_DATE('10:00 AM', '%h:%i %p'))
-- A TIME beside a DATE or DATETIME (IFNULL, COALESCE, IF, CASE) is a DATETIME, the TIME today (its nullability not followed: in a derived table).
SELECT * FROM (SELECT IFNULL(TIME '12:34:56', DATE '2024-03-05') AS a, IFNULL(DATE '2026-11-28', TIME '00:00:00') AS b, COALESCE(TIME '01:00:00', DATE '2024-01-01') AS c, IF(1, TIME '01:00:00', DATE '2024-01-01') AS d, CASE WHEN 1 THEN TIME '01:00:00' ELSE TIMESTAMP '2024-01-01 00:00:00' END AS e) t
-- A TIME compares with a string or a number as a TIME (one that reads as none is 00:00:00), with a DATE or DATETIME as a DATETIME (the TIME today).
SELECT TIME '00:00:00' > '', TIME '01:00:00' > '', TIME '01:00:00' = 10000, 1 > TIME '00:00:00', 1e0 >= TIME '-01:30:00', TIME '01:00:00' = DATE '2026-11-30', TIME '12:34:56' NOT IN ('', DATE '2026-11-28'), TIME '00:00:00' NOT IN (NULL, 0), '' NOT IN (1, TIME '23:59:59'), NULLIF(TIME '00:00:00', '')
-- GREATEST and LEAST of a TIME among numbers are TIMEs (their declared fraction digits are not followed: in a derived table).
SELECT * FROM (SELECT GREATEST(TIME '12:34:56', 1.5) AS a, GREATEST(1.5, TIME '12:34:56') AS b, LEAST(1, TIME '12:34:56') AS c, GREATEST(TIME '12:34:56', 1e0) AS d) t
-- A TIME as a truth value is its number (00:00:01 is true).
SELECT NOT SEC_TO_TIME(1), SEC_TO_TIME(1) AND 1, SEC_TO_TIME(0) XOR 1, (SEC_TO_TIME(0) OR 0)
SELECT COUNT(*) FROM request WHERE SEC_TO_TIME(1)
SELECT COUNT(*) FROM request WHERE CAST(TIME '23:59:59' AS DATE)
SELECT COUNT(*) FROM request HAVING CAST(1 AS TIME)
-- A TIME moved by days (ADDDATE, SUBDATE) or by TIMESTAMPADD of a day or less stays a TIME; by weeks or more TIMESTAMPADD makes a DATETIME.
SELECT SUBDATE(TIME '12:34:56', -1), ADDDATE(TIME '12:34:56', -2), ADDDATE(TIME '01:00:00', 1), TIMESTAMPADD(HOUR, -1, TIME '12:34:56'), TIMESTAMPADD(MINUTE, 1, TIME '00:00:00'), TIMESTAMPADD(DAY, 1, TIME '01:00:00'), TIMESTAMPADD(YEAR, 3, TIME '12:34:56')
-- EXTRACT of a DAY or time-of-day unit reads a TIME, a number short of a datetime or text with no date part as a time interval: its days are its hours over 24, signed; a year or month of a TIME is 0.
SELECT * FROM (SELECT EXTRACT(DAY FROM 1), EXTRACT(DAY FROM 1.5), EXTRACT(DAY FROM 32), EXTRACT(DAY FROM -1), EXTRACT(DAY FROM 20240305), EXTRACT(DAY FROM 240305), EXTRACT(DAY FROM 490203), EXTRACT(DAY FROM -490203), EXTRACT(DAY FROM 1000000), EXTRACT(DAY FROM -2147483648), EXTRACT(DAY_HOUR FROM 1), EXTRACT(HOUR FROM 20240305)) t
SELECT EXTRACT(YEAR FROM TIME '01:02:03'), EXTRACT(MONTH FROM TIME '01:02:03'), EXTRACT(YEAR_MONTH FROM TIME '01:02:03'), EXTRACT(DAY FROM TIME '01:02:03'), EXTRACT(DAY FROM TIME '49:02:03'), EXTRACT(DAY FROM TIME '-49:02:03'), EXTRACT(DAY_SECOND FROM TIME '-49:02:03'), EXTRACT(DAY FROM '2024-03-05'), EXTRACT(DAY FROM 20240305010203), EXTRACT(HOUR FROM '2024-03-05 10:00:00'), EXTRACT(DAY FROM '100:00:00'), EXTRACT(DAY FROM DATE '2024-03-05')
-- A temporal read as bits rounds its fraction (as any number read as an integer).
SELECT ~FROM_UNIXTIME(1700000000.5), ~FROM_UNIXTIME(1700000000.4), ~TIMESTAMP '2024-01-01 00:00:00.5', ~TIME '00:00:01.5', ~TIME '-00:00:01.5', FROM_UNIXTIME(1700000000.5) | 0, TIME '00:00:01.5' ^ 0, DATE '2024-01-01' & 3
-- ABS of a whole temporal is a DECIMAL as long as its text; FLOOR of a DATETIME's a BIGINT (its length not followed: in a derived table).
SELECT ABS(TIMESTAMP '1000-01-01 00:00:00'), ABS(DATE '2024-01-01'), ABS(TIME '12:00:00')
SELECT * FROM (SELECT FLOOR(ABS(TIMESTAMP '1000-01-01 00:00:00')) AS a) t
-- Real-world shapes round three (helper-32): what GUI clients (DBeaver, HeidiSQL, Workbench), Grafana and Metabase send at connect and when browsing a table
SELECT DATABASE()
SHOW VARIABLES LIKE 'lower_case_table_names'
SHOW VARIABLES LIKE 'collation%'
SHOW SESSION VARIABLES LIKE 'autocommit'
SHOW TABLES FROM `pinba` LIKE 'tag'
SHOW FULL TABLES FROM `pinba` WHERE Table_type = 'BASE TABLE' AND Tables_in_pinba LIKE 't%'
SHOW COLUMNS FROM `timertag` LIKE 'val%'
SHOW INDEX FROM `request` FROM `pinba`
SHOW INDEXES FROM `timer`
SHOW KEYS FROM `tag`
SHOW CREATE DATABASE `pinba`
SHOW CHARACTER SET LIKE 'utf8mb4'
SHOW COLLATION LIKE 'utf8mb4_general_ci'
SELECT * FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'pinba'
SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME IN ('request', 'timer', 'timertag', 'tag') ORDER BY TABLE_NAME
SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'request'
SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'pinba' AND table_name LIKE 'time%' ORDER BY 1
SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = 'pinba' AND table_name = 'tag' ORDER BY ordinal_position
SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = 'request'
SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME IN ('timer', 'tag') AND DATA_TYPE IN ('int', 'bigint') ORDER BY TABLE_NAME, ORDINAL_POSITION
SELECT * FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'pinba'
SELECT SPECIFIC_NAME, ROUTINE_TYPE FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() ORDER BY SPECIFIC_NAME
SELECT * FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'pinba'
SELECT * FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'pinba'
SELECT * FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'pinba' AND REFERENCED_TABLE_NAME IS NOT NULL
SELECT CONSTRAINT_NAME, TABLE_NAME FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = 'pinba' AND CONSTRAINT_TYPE = 'FOREIGN KEY'
SELECT * FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'pinba'
SELECT * FROM information_schema.EVENTS WHERE EVENT_SCHEMA = 'pinba'
SELECT * FROM information_schema.PARAMETERS WHERE SPECIFIC_SCHEMA = 'pinba'
SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = 'request' ORDER BY INDEX_NAME, SEQ_IN_INDEX
SELECT CHARACTER_SET_NAME, DEFAULT_COLLATE_NAME FROM information_schema.CHARACTER_SETS WHERE CHARACTER_SET_NAME = 'utf8mb4'
SELECT COLLATION_NAME, CHARACTER_SET_NAME, IS_DEFAULT FROM information_schema.COLLATIONS WHERE COLLATION_NAME = 'utf8mb4_general_ci'
SELECT COUNT(*) FROM `request`
SELECT COUNT(*) FROM `pinba`.`timer`
SELECT COUNT(*) FROM `timertag`
SELECT COUNT(*) FROM `tag`
SELECT COUNT(1) AS cnt FROM `request` WHERE status = 200
SELECT * FROM `request` ORDER BY `id` LIMIT 200
SELECT * FROM `pinba`.`request` ORDER BY `id` DESC LIMIT 0, 200
SELECT * FROM `timer` ORDER BY `id` ASC LIMIT 200
SELECT * FROM `tag` ORDER BY `name` LIMIT 200
SELECT * FROM `timertag` ORDER BY `timer_id`, `tag_id` LIMIT 200
SELECT `id`, `hostname`, `server_name`, `script_name`, `req_time`, `status` FROM `request` ORDER BY `req_time` DESC, `id` LIMIT 200
SELECT `id`, `hostname`, `status` FROM `request` WHERE `status` >= 400 ORDER BY `id` LIMIT 200
SELECT MIN(`id`), MAX(`id`), COUNT(*) FROM `request`
SELECT DISTINCT `status` FROM `request` ORDER BY `status`
SELECT `hostname`, COUNT(*) AS `count` FROM `request` GROUP BY `hostname` ORDER BY `count` DESC, `hostname`
SELECT `script_name`, ROUND(AVG(`req_time`), 4) AS `avg` FROM `request` GROUP BY `script_name` ORDER BY `avg` DESC, `script_name` LIMIT 10
SELECT COUNT(*) AS c FROM (SELECT * FROM `request` LIMIT 200) AS t
SELECT 1 AS test
SELECT @@autocommit
SELECT @@session.autocommit
SELECT @@max_allowed_packet
SELECT @@lower_case_table_names
SELECT @@character_set_database, @@collation_database
SHOW WARNINGS
SHOW ERRORS
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED
SET SQL_SELECT_LIMIT = 5
SELECT id FROM request ORDER BY id
SET SQL_SELECT_LIMIT = DEFAULT
-- SQL_CALC_FOUND_ROWS … LIMIT: FOUND_ROWS() is the rows without the LIMIT (counted by a second query); without it, the rows sent
SELECT SQL_CALC_FOUND_ROWS `id`, `hostname` FROM `request` ORDER BY `id` LIMIT 20
SELECT FOUND_ROWS()
SELECT SQL_CALC_FOUND_ROWS `id` FROM `request` WHERE `status` = 404 ORDER BY `id` LIMIT 5
SELECT FOUND_ROWS()
SELECT SQL_CALC_FOUND_ROWS hostname, COUNT(*) FROM request GROUP BY hostname ORDER BY hostname LIMIT 1
SELECT FOUND_ROWS()
SELECT SQL_CALC_FOUND_ROWS DISTINCT status FROM request ORDER BY status LIMIT 2
SELECT FOUND_ROWS()
SELECT SQL_CALC_FOUND_ROWS id FROM request WHERE id < 3 UNION ALL SELECT id FROM timer WHERE id < 3 ORDER BY 1 LIMIT 2
SELECT FOUND_ROWS()
SELECT SQL_CALC_FOUND_ROWS id FROM request ORDER BY id LIMIT 2, 3
SELECT FOUND_ROWS()
SELECT id FROM request ORDER BY id LIMIT 7
SELECT FOUND_ROWS()
SELECT ROW_COUNT()
-- SHOW DATABASES/TABLES LIKE name their column after the pattern
SHOW DATABASES LIKE 'pin%'
SHOW TABLES LIKE 'req%'
SHOW FULL TABLES LIKE 'time%'
-- SET character_set_results = NULL: @@character_set_results is NULL, results unchanged
SET character_set_results = NULL
SELECT @@character_set_results
SELECT 'é' AS e, hostname FROM request ORDER BY id LIMIT 1
SET character_set_results = utf8mb4
SELECT @@character_set_results
SET NAMES utf8mb4 COLLATE utf8mb4_general_ci
-- ODBC's {oj …} outer join escape and {d}/{t}/{ts} literals (Excel, MS Query)
SELECT r.id, t.id FROM {oj request r LEFT OUTER JOIN timer t ON t.request_id = r.id} ORDER BY r.id, t.id LIMIT 5
SELECT COUNT(*) FROM {oj request r LEFT OUTER JOIN timer t ON t.request_id = r.id}
SELECT {d '2024-01-01'}, {t '12:00:00'}, {ts '2024-01-01 12:00:00'}, {fn UCASE('x')}
-- MariaDB's GROUP BY x DESC/ASC: the groups sorted so where no ORDER BY says otherwise (rollup rows after their groups)
SELECT hostname, COUNT(*) FROM request GROUP BY hostname DESC
SELECT hostname, COUNT(*) FROM request GROUP BY hostname ASC
SELECT hostname, status, COUNT(*) FROM request GROUP BY hostname DESC, status ASC LIMIT 4
SELECT hostname, COUNT(*) FROM request GROUP BY hostname DESC ORDER BY 2, 1 LIMIT 4
SELECT hostname, COUNT(*) FROM request GROUP BY 1 DESC LIMIT 2
SELECT hostname, COUNT(*) FROM request GROUP BY hostname DESC WITH ROLLUP
SELECT h, c FROM (SELECT hostname AS h, COUNT(*) AS c FROM request GROUP BY hostname DESC LIMIT 2) x
-- LOCK IN SHARE MODE and FOR UPDATE lock nothing (read-only tables)
SELECT id FROM request ORDER BY id LIMIT 2 LOCK IN SHARE MODE
SELECT id FROM request ORDER BY id LIMIT 2 FOR UPDATE
SELECT COUNT(*) FROM request WHERE id IN (SELECT request_id FROM timer LOCK IN SHARE MODE)
-- SELECT … INTO @a, @b sets the variables from its one row (none: unchanged; more: 1172; another count of columns: 1222)
SELECT COUNT(*) INTO @total FROM request
SELECT @total
SELECT MIN(id), MAX(id) INTO @lo, @hi FROM request
SELECT @lo, @hi, @hi - @lo
SELECT id, hostname FROM request ORDER BY id LIMIT 1 INTO @rid, @rhost
SELECT @rid, @rhost
SELECT id INTO @none FROM request WHERE id < 0
SELECT @none
=SELECT id INTO @many FROM request
=SELECT 1, 2 INTO @one
-- TIMESTAMP(x) and TIMESTAMP(x, t): DATETIMEs with MariaDB's fraction digits
SELECT TIMESTAMP('2024-01-01'), TIMESTAMP('2024-01-01 10:00:00', '01:30:00'), TIMESTAMP('2024-01-01 10:00:00.5'), TIMESTAMP(20240101), TIMESTAMP(NULL), TIMESTAMP('x'), TIMESTAMP(FROM_UNIXTIME(1.5)), DATE(TIMESTAMP('2024-03-05 12:34:56', '12:00:00'))
SELECT TIMESTAMP(FROM_UNIXTIME(timestamp)) = FROM_UNIXTIME(timestamp), TIMESTAMP(timestamp) FROM request ORDER BY id LIMIT 2
-- SUM/AVG of doubles added one after another, as MariaDB adds them (SQLite compensates)
SELECT CONCAT(AVG(0.1e0), ''), CONCAT(SUM(0.1e0), ''), SUM(DISTINCT 0.1e0) FROM request
SELECT server_name, CONCAT(SUM(req_time), ''), CONCAT(SUM(ru_utime * 3), '') FROM request GROUP BY server_name ORDER BY server_name
SELECT CONCAT(SUM(req_time), ''), CONCAT(SUM(1e0 / id), '') FROM request WHERE status > 200
-- A sum past the largest double is shown as 0 (my_gcvt), compared as infinite
SELECT SUM(a), CONCAT(SUM(a), ''), AVG(a), SUM(a) > 0 FROM (SELECT 1e308 a UNION ALL SELECT 1e308) t
-- GREATEST/LEAST among TIMEs: what reads as no TIME makes them NULL
SELECT GREATEST(TIME '12:34:56', '') IS NULL, LEAST(TIME '12:34:56', 2147483647) IS NULL, LEAST(TIME '12:34:56', 10000), GREATEST(TIME '12:34:56', 123456)
-- A number as a TIME: past 7 digits a datetime's time, else clipped at 838:59:59
SELECT CAST(2147483647 AS TIME), CAST(20240305 AS TIME), CAST(20240305102030 AS TIME), CAST(8395999 AS TIME), CAST(8395959 AS TIME), CAST(-20240305 AS TIME), TIME(2147483647), TIME(20240305)
SELECT TIME '00:00:00' = 20240305, TIME '10:20:30' = 20240305102030, HOUR(20240305102030)
-- MAKE_SET/EXPORT_SET read an unsigned's 64 bits
SELECT MAKE_SET(~1, '', 1.5), EXPORT_SET(~1, 'Y', 'N', ',', 4), MAKE_SET(~0, 'a', 'b'), MAKE_SET(CAST(-2 AS UNSIGNED), 'a', 'b')
-- A comparison reads a date with a day up to 31 in any month (MariaDB allows invalid dates there)
SELECT DATE '2000-02-28' < '2000-02-31', DATE '2000-02-28' < '2000-04-31', TIMESTAMP '2000-02-28 00:00:00' < '2000-02-30 10:00:00', DATE '2000-02-28' < 20000231, DATE '2000-02-28' < '2000-02-32', DATE '2000-02-28' > 20000200, DATE '2000-02-28' < '2001-02-29'
SELECT TIMESTAMP '1970-01-01 00:00:00' < 231, TIMESTAMP '2000-02-29 00:00:00' < 231.75e0, TIMESTAMP '2000-03-01 00:00:00' < 231.75e0, DATE '2000-02-28' BETWEEN 229 AND 231, DATE '2000-03-01' IN ('2000-02-30', 301)
SELECT COUNT(*) FROM request WHERE TIMESTAMP '1970-01-01 00:00:00' < memory_footprint
SELECT COUNT(*) FROM request WHERE FROM_UNIXTIME(timestamp) < '2099-02-31' AND FROM_UNIXTIME(timestamp) > '1999-11-31'
-- helper-35 (column definitions): a DOUBLE's length by its function's class (float_length: ABS, MIN/MAX, GREATEST; count_real_length: IF, IFNULL, COALESCE, CASE)
SELECT ABS(1e0), ABS(NULL), ABS(ROUND(1e0, 2)), GREATEST(1e0, 1), IFNULL(1e0, 1e0), IFNULL(1, 1e0), COALESCE(0.0, 1e0), COALESCE(CRC32('a'), 1e0), COALESCE(ABS(NULL), 1e0), CASE WHEN 5 THEN 1.5 ELSE 1e0 END, IF(1, ROUND(1e0, 2), 12345)
-- helper-35: FLOOR/CEIL of a DECIMAL: its integer digits as written, one more only where it has a fraction
SELECT FLOOR(0.5), CEILING(0.125), FLOOR(-0.0), FLOOR(.5), CEIL(-0.5), FLOOR(00.5), FLOOR(CAST(1 AS DECIMAL(5,0))), ROUND(0.5), TRUNCATE(0.5, 0)
-- helper-35: CAST(x AS UNSIGNED) keeps x's length where x is never negative, is a LONG up to 10 characters
SELECT CAST(2147483647 AS UNSIGNED), CAST(9999999999 AS UNSIGNED), CAST(12345678901 AS UNSIGNED), CAST(-1 AS UNSIGNED), CAST(1 + 1 AS UNSIGNED), CAST(1 = 1 AS UNSIGNED), CAST(IS_IPV4('1') AS UNSIGNED), CAST(LENGTH('a') AS UNSIGNED), CAST(CRC32('a') AS UNSIGNED)
SELECT CAST(YEAR(NULL) AS UNSIGNED), CAST(SECOND(NULL) AS UNSIGNED), CAST(MICROSECOND(NULL) AS UNSIGNED), CAST(DAYOFYEAR(NULL) AS UNSIGNED), CAST(TO_DAYS(NULL) AS UNSIGNED), CAST(WEEKDAY(NULL) AS UNSIGNED), CAST(DAYOFWEEK(NULL) AS UNSIGNED), CAST(YEARWEEK(NULL) AS UNSIGNED), CAST(DATEDIFF(NULL, NULL) AS UNSIGNED)
SELECT CAST(SECOND(NULL) AS UNSIGNED) FROM timertag LIMIT 1
-- helper-35: nullability: ROUND/TRUNCATE of NULL places, POSITION of a NULL or a column, FIELD never
SELECT ROUND(1, NULL), ROUND(1e0, NULL), TRUNCATE(1.5, NULL), TRUNCATE(TIME '23:59:59', NULL), POSITION('' IN NULL), POSITION(0 IN NULL), POSITION('a' IN 'bab'), FIELD(1, 1, NULL), FIELD(NULL, 1.5, 1.5)
-- helper-35: JSON_UNQUOTE's text is of a binary collation: flagged BINARY
SELECT JSON_UNQUOTE('"abc"'), JSON_UNQUOTE('1'), JSON_UNQUOTE('"a\\nb"')
SELECT JSON_UNQUOTE('1') FROM request LIMIT 1
-- helper-35: COUNT(DISTINCT …) sorted again by another order goes through a temporary table (no BINARY)
-- helper-35: a constant WHERE that is false or NULL reads no row: no temporary table, the items' own flags
SELECT value, COUNT(*) FROM timertag WHERE '' GROUP BY 1
SELECT tags_cnt, SUM(1) FROM request WHERE (1.5 = 0.25) GROUP BY 1
SELECT request_id, BIT_XOR(NULL) FROM timer WHERE (NULL <= 1e0) GROUP BY 1
-- helper-35: ROUND adds an integer digit only where it drops decimals; ABS and minus of a string are DOUBLEs of no fixed decimals; NULLIF of a text column an expression's 39 decimals
SELECT CEIL(ROUND(1.5, 10)), ROUND(1.5, 10), ROUND(1.25, 1), CEIL(ROUND(1.25, 1)), ABS(''), -'', ABS('1.5')
SELECT NULLIF(`schema`, ''), NULLIF(hostname, NULL) FROM request ORDER BY id LIMIT 2
-- helper-35: a DATE rounded is an UNSIGNED number of 8 digits
SELECT ROUND(CAST('2023-12-31' AS DATE)), TRUNCATE(CAST('2023-12-31' AS DATE), NULL), FLOOR(CAST('2023-12-31' AS DATE))
-- helper-35: grouped by a function that changes per row (UUID()): a temporary table's columns
-- helper-35: a WHERE false whatever its column (0 AND x) or NULL (NULL BETWEEN …) reads no row
SELECT tags_cnt, SUM(1) FROM request WHERE (0 AND tags_cnt) GROUP BY 1
-- helper-35: sorted again after a COUNT(DISTINCT …) grouping: every computed value stored (a variance too), none where the group is a constant
SELECT '', COUNT(DISTINCT '') FROM timertag GROUP BY 1 ORDER BY 1, 2
SELECT req_count, (COUNT(DISTINCT '') > 1) FROM request GROUP BY 1 ORDER BY 1, 2
-- helper-35: minus of a text column: a DOUBLE within 53 characters, of no fixed decimals
SELECT (-hostname) FROM request ORDER BY id LIMIT 1
-- System variables typed by the variable, as MariaDB types @@x (src/sql/variables.rs SYSTEM): a boolean a BIGINT of 1
SELECT @@autocommit, @@session.autocommit, @@global.autocommit AS y, @@local.autocommit
SELECT @@foreign_key_checks, @@unique_checks, @@sql_auto_is_null, @@sql_safe_updates, @@sql_notes, @@sql_warnings
SELECT @@sql_quote_show_create, @@sql_big_selects, @@sql_buffer_result, @@sql_log_off, @@performance_schema, @@lower_case_file_system
SELECT @@explicit_defaults_for_timestamp, @@profiling, @@big_tables, @@low_priority_updates, @@session_track_schema, @@session_track_state_change
SELECT @@autocommit + 0, @@foreign_key_checks * 2, -@@unique_checks
-- A number a BIGINT of 21, UNSIGNED where MariaDB's is (sql_select_limit: 18446744073709551615 unless set)
SELECT @@sql_select_limit, @@session.sql_select_limit, @@global.sql_select_limit AS l
SELECT @@sql_select_limit + 0, @@max_join_size
SELECT @@max_allowed_packet, @@net_write_timeout, @@net_read_timeout, @@net_buffer_length, @@div_precision_increment, @@group_concat_max_len
SELECT @@default_week_format, @@auto_increment_increment, @@auto_increment_offset, @@lower_case_table_names, @@protocol_version, @@max_user_connections
SELECT @@optimizer_search_depth, @@lock_wait_timeout, @@max_sort_length, @@identity, @@last_insert_id, @@insert_id, @@in_transaction
SELECT @@warning_count IS NULL, @@error_count + 0 >= 0
SELECT @@max_connections IS NULL, @@max_connections + 0 > 0, @@port IS NULL, @@port + 0 >= 0, @@wait_timeout + 0 > 0, @@interactive_timeout IS NULL, @@query_cache_size IS NULL
-- A DOUBLE of 6 decimals
SELECT @@long_query_time, @@max_statement_time, @@long_query_time + 0
-- A string: a VARCHAR (utf8mb4) as long as its value
SELECT @@character_set_client, @@character_set_connection, @@character_set_results, @@character_set_server, @@character_set_database
SELECT @@collation_connection, @@collation_server, @@collation_database, @@character_set_filesystem, @@character_set_system, @@lc_time_names
SELECT @@sql_mode, @@session_track_transaction_info, @@completion_type, @@lc_messages, @@updatable_views_with_limit, @@init_connect, @@have_ssl, @@query_cache_type
SELECT @@session_track_system_variables, @@event_scheduler, @@system_time_zone, @@default_tmp_storage_engine
SELECT @@version IS NULL, @@version_comment IS NULL, @@license IS NULL, @@hostname IS NULL, @@datadir IS NULL, @@basedir IS NULL, @@socket IS NULL, @@tx_isolation IS NULL, @@version_compile_os IS NULL
SELECT @@sql_mode AS m, @@session.sql_mode AS s, CONCAT(@@character_set_client, '') AS c
-- Unknown variables and scopes a variable has not: MariaDB's errors (1193, 1238)
=SELECT @@no_such_variable
=SELECT @@session.no_such_variable, 1
=SELECT @@sql_require_primary_key
=SELECT @@global.warning_count
=SELECT @@global.last_insert_id
=SELECT @@session.version
=SELECT @@local.max_connections
-- SHOW VARIABLES of the variables read above
SHOW VARIABLES LIKE 'long_query_time'
SHOW VARIABLES LIKE 'sql_select_limit'
SHOW SESSION VARIABLES LIKE 'net_read_timeout'
SHOW GLOBAL VARIABLES WHERE Variable_name IN ('autocommit', 'max_statement_time', 'net_buffer_length', 'lower_case_file_system')
-- A user variable is typed by what was assigned: a NULL of a typed expression has its type, a bare NULL keeps the variable's
SELECT MAX(id) INTO @typed_null FROM request WHERE id < 0
SELECT @typed_null
SELECT CAST(NULL AS CHAR) INTO @text_null
SELECT @text_null
SET @kept = 5
SET @kept = NULL
SELECT @kept
SELECT MAX(1e0) INTO @double_null FROM request WHERE id < 0
SELECT @double_null
-- TIMESTAMP(d, t): the larger of its operands' fraction digits
SELECT TIMESTAMP('2024-01-01', '01:02:03.5'), TIMESTAMP('2024-01-01 00:00:00.12', '01:02:03'), TIMESTAMP('2024-01-01', '01:02:03')
SELECT TIMESTAMP('2024-01-01 10:00:00.123', '00:00:01.5'), TIMESTAMP(FROM_UNIXTIME(timestamp), '00:00:01') FROM request ORDER BY id LIMIT 1
-- One direction a GROUP BY item: a second is a syntax error (1064)
=SELECT hostname FROM request GROUP BY hostname DESC DESC
=SELECT hostname, status FROM request GROUP BY hostname ASC DESC, status
-- GREATEST/LEAST compared as DATETIMEs or TIMEs: the fraction digits the operands are read with (a literal's as written, a string column's and a DOUBLE's 6)
SELECT GREATEST('', TIMESTAMP '2038-01-19 03:14:07'), TRIM(GREATEST('', TIMESTAMP '2038-01-19 03:14:07'))
SELECT GREATEST('2020-01-01 00:00:00.5', TIMESTAMP '2019-01-19 03:14:07'), CONCAT(GREATEST('2020-01-01', TIMESTAMP '2019-01-19 03:14:07'), '')
SELECT CONCAT(GREATEST(TIMESTAMP '2038-01-19 03:14:07', 1.5), ''), CONCAT(GREATEST(TIMESTAMP '2038-01-19 03:14:07', 1e0), ''), CONCAT(LEAST(TIMESTAMP '2038-01-19 03:14:07', 1), '')
SELECT CONCAT(GREATEST(server_name, TIMESTAMP '2038-01-19 03:14:07'), '') FROM request ORDER BY id LIMIT 2
SELECT CONCAT(GREATEST(TIME '12:34:56', '13:00:00'), ''), CONCAT(LEAST(TIME '12:34:56', '13:00:00.25'), ''), CONCAT(GREATEST(TIME '12:34:56', 1e0), '')
-- ADDTIME/SUBTIME of a string are strings whose fraction shows 6 digits, or none where it is zero
SELECT ADDTIME('10:00:00', '01:00:00.25'), ADDTIME('2020-01-01 10:00:00', '01:00:00.5'), SUBTIME('10:00:00.5', '00:00:00.5'), ADDTIME('10:00:00', '01:00:00')
SELECT ADDTIME(TIME '10:00:00', '01:00:00.25'), CONCAT(ADDTIME(TIME '10:00:00', '01:00:00.25'), '')
-- FORMAT reads a temporal as its number
SELECT FORMAT(TIME '12:34:56', 8), FORMAT(DATE '2024-03-05', 0), FORMAT(TIMESTAMP '2024-03-05 12:34:07.25', 2), FORMAT(TIME '-01:30:00', 1)
SELECT FORMAT(TIME '12:34:56', 2, 'de_DE'), FORMAT(FROM_UNIXTIME(0), 1), FORMAT(CAST('12:00:00.5' AS TIME), 3)
-- FORMAT with a locale: its separators and grouping as MariaDB's locale table gives them
SELECT FORMAT(1234567.5, 2, 'de_DE'), FORMAT(1234567.5, 2, 'fr_FR'), FORMAT(-1234567.5, 1, 'ru_RU'), FORMAT(1234567.5, 2, 'en_IN'), FORMAT(1234567.5, 2, 'de_CH'), FORMAT(1234567.5, 2, 'xx_YY'), FORMAT(1234567, 0, NULL)
SELECT FORMAT(req_time, 3, 'de_DE'), FORMAT(id * 1000, 0, 'it_CH') FROM request ORDER BY id LIMIT 3
-- A string read as a TIME: a date with a time its time, and compared with a TIME a date alone is the number its leading digits make; a day part only before two-digit hours
SELECT CAST('2026-11-28 12' AS TIME), CAST('2026-02-30 12:00:00' AS TIME), CAST('2026-13-45 12:00:00' AS TIME), CAST('1 2' AS TIME), CAST('1 12' AS TIME), CAST('1 123' AS TIME), CAST('-1 02' AS TIME)
SELECT TIME '00:00:00' = '2026-11-28', TIME '00:00:00' IN ('2026-11-28', NULL), TIME '00:00:12' = '12-11-28', HOUR('2026-02-30 12:00:00'), TIME_FORMAT('2026-02-30 12:00:00', '%H'), CAST(DATE '2024-03-05' AS TIME), MINUTE(DATE '9999-12-31')
-- TIMEs compare and sort by value, not by their text; a number or string beside one is not clipped at 838:59:59
SELECT TIME '100:00:00' > TIME '12:00:00', TIME '-01:00:00' < TIME '-02:00:00', TIME '100:00:00' > '12:00:00', 8390000 > TIME '838:59:59', 9000000 = TIME '838:59:59', '900:00:00' > TIME '838:59:59', 18446744073709551615 > TIME '838:59:59', 100000000000000 = TIME '838:59:59', 1e20 > TIME '838:59:59'
SELECT GREATEST(TIME '100:00:00', TIME '12:00:00'), LEAST(TIME '-01:00:00', TIME '-02:00:00'), GREATEST(TIME '100:00:00', '12:00:00'), NULLIF(TIME '100:00:00', '100:00:00'), CASE TIME '100:00:00' WHEN 1000000 THEN 'a' ELSE 'b' END, TIME '100:00:00' BETWEEN '12:00:00' AND 1500000
SELECT SEC_TO_TIME(id * 40000 - 200000) AS t FROM request ORDER BY t DESC LIMIT 8
=SELECT TIME '839:00:00', TIME '-839:00:00'
-- MIN/MAX of TIMEs by value
SELECT MAX(SEC_TO_TIME(id * 40000 - 200000)), MIN(SEC_TO_TIME(id * 40000 - 200000)), MAX(DISTINCT SEC_TO_TIME(id * 40000 - 200000)), MIN(TIME '100:00:00') FROM request
SELECT hostname, MAX(SEC_TO_TIME(id * 40000 - 200000)) AS t, MIN(SEC_TO_TIME(id * 40000 - 200000)) FROM request GROUP BY hostname ORDER BY hostname
-- A BIGINT UNSIGNED compared with a TIME is read by its value: minutes or seconds past 59 are no TIME (00:00:00)
SELECT 9223372036854775899 = TIME '00:00:00', 18446744071562067968 = TIME '00:00:00', 18446744073709551559 > TIME '838:59:59', CAST(9999999999999999999 AS UNSIGNED) = TIME '00:00:00', 9223372036854775899 IN (TIME '00:00:00')
-- A binary string's length is its bytes'; CONCAT keeps bytes no UTF-8 reads
SELECT LENGTH(x'C801'), LENGTH(UNHEX('C801')), LENGTH(CHAR(200, 1)), BIT_LENGTH(CHAR(200)), CHAR_LENGTH(UNHEX('C3A9')), LENGTH(CONCAT(CHAR(200), '')), HEX(CONCAT(CHAR(200), 'a'))
SELECT STDDEV_POP(LENGTH(CHAR(status, 1))), SUM(LENGTH(CHAR(id * 100))) FROM request
-- FIND_IN_SET compares with trailing spaces (no PAD SPACE), case aside
SELECT FIND_IN_SET('', ' '), FIND_IN_SET('', 'a,,b'), FIND_IN_SET(' ', 'a, ,b'), FIND_IN_SET('a ', 'a,b'), FIND_IN_SET('a', 'a ,b'), FIND_IN_SET('A', 'a,b'), FIND_IN_SET('é', 'e,b')
-- GROUP_CONCAT(DISTINCT) compares by the collation, trailing spaces aside; with ORDER BY an unsigned value is written as one
SELECT GROUP_CONCAT(DISTINCT x) FROM (SELECT 'a' x UNION ALL SELECT 'a ' UNION ALL SELECT 'A  ') t
SELECT GROUP_CONCAT(DISTINCT EXPORT_SET(id, '', ' ', ' ', 3) ORDER BY EXPORT_SET(id, '', ' ', ' ', 3)) FROM request
SELECT GROUP_CONCAT(DISTINCT (1 | 9223372036854775808) ORDER BY (1 | 9223372036854775808)) FROM timer
SELECT t.* FROM (SELECT GROUP_CONCAT(name ORDER BY name) c FROM tag) t
-- Sums of DECIMAL quotients grouped in a temporary table (or DISTINCT) add each value rounded to its scale; ungrouped, WITH ROLLUP or by a constant, exact
SELECT hostname, SUM(status/7), AVG(status/7), SUM(0.1/3), AVG(0.1/3), MAX(status/7) FROM request GROUP BY 1 ORDER BY 1
SELECT name, AVG(0.1 / id) FROM tag GROUP BY 1 ORDER BY 1
SELECT AVG(DISTINCT status/7), SUM(DISTINCT status/7), SUM(status/7), AVG(status/7) FROM request
SELECT status, AVG(DISTINCT status/7) FROM request GROUP BY status ORDER BY 1
SELECT hostname, AVG(status/7) FROM request GROUP BY hostname WITH ROLLUP
SELECT SUM(status/7), AVG(status/7) FROM request GROUP BY 'x'
SELECT t.h, t.s FROM (SELECT hostname h, SUM(doc_size/1024) s FROM request GROUP BY hostname) t ORDER BY 1
-- Digits alone read as a datetime by their count: a two-digit year but where 4, 8 or 14 and more, then two digits a part
SELECT CAST('24030' AS DATETIME), CAST('2403051' AS DATETIME), CAST('240305123' AS DATETIME), CAST('24030512345' AS DATETIME), CAST('2403051234567' AS DATETIME), CAST('24030512345678' AS DATETIME), CAST('2403051.5' AS DATETIME), CAST('1000000000000.5' AS DATETIME(6))
SELECT DATE '1970-01-01' <= BIN(timer_id), CAST(BIN(timer_id) AS DATE) FROM timertag ORDER BY timer_id
-- GREATEST of NULLs alone is NULL typed
SELECT GREATEST(NULL, NULL), LEAST(NULL, NULL)
-- A DECIMAL compared with a TIME: a number, its whole part past a BIGINT's the largest BIGINT
SELECT 9999999999999999999.0 = TIME '00:00:00', 18446744073709551615.5 > TIME '838:59:59', IFNULL(BIT_AND(NULL), 0) = TIME '00:00:00', 1.5 = TIME '00:00:01.5', -2.25 < TIME '-00:00:02', 99.5 = TIME '00:00:00' FROM request LIMIT 1
-- CONVERT(… USING utf8mb4) of a binary string is text again: CHAR_LENGTH counts its characters
SELECT CHAR_LENGTH(CONVERT(UNHEX('C3A9') USING utf8mb4)), LENGTH(CONVERT(UNHEX('C3A9') USING utf8mb4)), CHAR_LENGTH(CONVERT(UNHEX('C3A9') USING binary)), CHAR_LENGTH(CAST(UNHEX('C3A9') AS CHAR)), CONVERT(UNHEX('C3A9') USING utf8mb4) = 'é'
-- SQLite's own functions, tables and table functions, and the translation's helpers, are not MySQL's: refused as MariaDB refuses a name it does not know.
=SELECT typeof(1)
=SELECT status, total(req_time) FROM request GROUP BY status
=SELECT printf('%d', status) FROM request
=SELECT mysql_decimal(1, 1, 2)
=SELECT json_group_array(status) FROM request
=SELECT datetime('now')
=SELECT * FROM sqlite_master
=SELECT name FROM pragma_table_info('request')
=SELECT * FROM json_each('[1,2]')
SELECT SIN(1), COS(1), TAN(1), ASIN(0.5), ACOS(0.5), ATAN(1), ATAN2(1, 2), ATAN(1, 2), ASIN(2), ACOS(-1.5)
SELECT script_name, ROUND(SIN(status) + COS(req_time), 6), ATAN(ru_utime, req_time) FROM request ORDER BY id LIMIT 5
-- CONVERT_TZ leaves a time a TIMESTAMP cannot hold (before 1970-01-01 00:00:01 UTC, after 2038-01-19 03:14:07) as it is.
SELECT CONVERT_TZ(FROM_UNIXTIME(0), '+00:00', '+03:00'), CONVERT_TZ('1970-01-01 00:00:01', '+00:00', '+03:00'), CONVERT_TZ('1970-01-01 03:00:00', '+03:00', '+00:00'), CONVERT_TZ(TIMESTAMP '1970-01-01 02:59:59.5', '+03:00', '+00:00'), CONVERT_TZ('2024-03-05 10:20:30.25', '+00:00', '+01:00'), CONVERT_TZ('2038-01-19 03:14:07', '+00:00', '-01:00'), CONVERT_TZ('2038-01-19 03:14:08', '+00:00', '-01:00'), CONVERT_TZ('1969-12-31 23:00:00', '-02:00', '+00:00'), CONVERT_TZ('1000-01-01', '+00:00', '+01:00')
-- MySQL's JSON functions SQLite answers otherwise (its spacing, DECIMAL scale, TRUE as 1) are refused, not answered by SQLite's rules.
!SELECT JSON_OBJECT('a', 1, 'e', 1.50, 'f', TRUE)
-- UPPER and LOWER map one character to one by utf8mb4_general_ci's table (not Unicode's full mapping).
SELECT UPPER('straße'), LOWER('İSTANBUL'), UPPER('ƀɐͱ'), LOWER('ȺϴϹ'), UPPER('ﬁ'), UPPER(CONCAT(script_name, 'ß')) FROM request ORDER BY id LIMIT 2
-- An alias in HAVING is its item, typed: COUNT(*) AS n compared with a string compares numbers.
SELECT script_name, COUNT(*) AS n FROM request GROUP BY script_name HAVING n >= '10' ORDER BY 1
SELECT script_name, COUNT(*) AS n, SUM(req_time) AS total FROM request WHERE status = '200' GROUP BY script_name HAVING n >= '10' AND total > '1' ORDER BY total DESC, script_name
SELECT status, AVG(req_time) AS a FROM request GROUP BY status HAVING a < '1.5' ORDER BY status
-- 0b101 is b'101'.
SELECT 0b101, 0b1000001 + 0, 0b1 | 2, b'101' = 0b101
-- LIKE by the operands' collation: byte by byte where one is a binary string (LIKE BINARY), by character under utf8mb4_bin; REGEXP against a binary string counts case.
SELECT 'abc' LIKE BINARY 'ABC', BINARY 'abc' LIKE 'ABC', 'abc' COLLATE utf8mb4_bin LIKE 'ABC', 'abc' LIKE 'ABC' COLLATE utf8mb4_bin, CAST('abc' AS BINARY) LIKE 'ABC', 'abc' NOT LIKE BINARY 'ABC', 'a' LIKE BINARY 'a', X'61' LIKE 'A'
SELECT 'é' LIKE BINARY '_', 'é' LIKE BINARY '__', 'é' COLLATE utf8mb4_bin LIKE '_', 'É' COLLATE utf8mb4_bin LIKE 'é', 'a%b' LIKE BINARY 'a!%b' ESCAPE '!', 'ab ' LIKE BINARY 'ab'
SELECT COUNT(*) FROM request WHERE script_name LIKE BINARY '/I%'
SELECT COUNT(*) FROM request WHERE BINARY script_name LIKE '/A%'
SELECT COUNT(*) FROM request WHERE script_name COLLATE utf8mb4_bin LIKE '%edit%'
SELECT BINARY 'abc' REGEXP 'B', 'abc' REGEXP BINARY 'B', 'abc' REGEXP 'B'
-- ROW(a, b) is a row.
SELECT COUNT(*) FROM request WHERE ROW(status, 200) = ROW(200, status)
SELECT COUNT(*) FROM request WHERE ROW(status, script_name) IN (ROW(200, '/index.php'), ROW(404, '/cron.php')) OR (1, 2) > ROW(1, 3)
-- A WHERE knows no select list alias (error 1054).
=SELECT status AS s, COUNT(*) FROM request WHERE s = 200 GROUP BY s
=SELECT req_time * 1000 AS ms FROM request WHERE ms > 500
-- WITH ROLLUP: a function over a GROUP BY item is declared nullable (MariaDB's change_group_ref), an aggregate's is not.
SELECT script_name, IFNULL(script_name, 'T'), CONCAT(script_name, 'x'), status + 1, IFNULL(status, 0), COUNT(*), IFNULL(COUNT(*), 0) FROM request GROUP BY script_name, status WITH ROLLUP
SELECT COALESCE(hostname, 'all'), IFNULL(SUM(req_time), 0), LENGTH(hostname) > 1, COUNT(*) FROM request GROUP BY hostname WITH ROLLUP
SELECT IFNULL(script_name, 'TOTAL') AS s, COUNT(*) FROM request GROUP BY script_name WITH ROLLUP
-- SEC_TO_TIME declares its argument's fraction digits, at most 6 (a DOUBLE's 6).
SELECT SEC_TO_TIME(req_time), SEC_TO_TIME(SUM(req_time)), SEC_TO_TIME(AVG(status)), SEC_TO_TIME(1.5e0), SEC_TO_TIME(1.25), SEC_TO_TIME(status) FROM request GROUP BY req_time, status ORDER BY req_time, status LIMIT 3
-- HEX of a DOUBLE: at or below -2^63 and at or past 2^64 every bit set, between 2^63 and 2^64 its unsigned value.
SELECT HEX(1.7976931348623157e308), HEX(-1e19), HEX(9223372036854775808e0), HEX(-9223372036854775808e0), HEX(2.5e0), HEX(-2.5e0), HEX(1e19), HEX(1.8446744073709552e19), HEX(-9.2e18)
-- A FLOAT column holds a 32-bit float and is written with six significant digits (1.424, not
-- 1.4240000247955322); computed from, it is the float's double (req_time + 0, SUM, ABS).
SELECT id, req_time, ru_utime, ru_stime, doc_size, mem_peak_usage, memory_footprint FROM request ORDER BY id LIMIT 5
SELECT req_time + 0, req_time * 1000, -req_time, ABS(req_time), req_time DIV 1, req_time MOD 1 FROM request ORDER BY id LIMIT 3
SELECT CONCAT(req_time), CAST(req_time AS CHAR), LENGTH(req_time), req_time LIKE '1.%', QUOTE(ru_utime), LEFT(req_time, 3), REPLACE(req_time, '.', ',') FROM request ORDER BY id LIMIT 3
SELECT GROUP_CONCAT(req_time ORDER BY id SEPARATOR ' ') FROM request WHERE id < 5
SELECT COALESCE(req_time), IFNULL(req_time, ru_utime), IF(id > 1, req_time, ru_stime), CASE WHEN id > 2 THEN req_time END, NULLIF(req_time, 0), IFNULL(req_time, 0), COALESCE(req_time, 1.5) FROM request ORDER BY id LIMIT 3
SELECT GREATEST(req_time, ru_utime), LEAST(req_time, ru_utime, NULL), GREATEST(req_time, 1), CONCAT(GREATEST(req_time, ru_utime)) FROM request ORDER BY id LIMIT 3
SELECT FIRST_VALUE(req_time) OVER (ORDER BY id), LAG(req_time) OVER (ORDER BY id), NTH_VALUE(ru_utime, 2) OVER (ORDER BY id) FROM request ORDER BY id LIMIT 3
SELECT req_time FROM request WHERE id = 1 UNION ALL SELECT ru_utime FROM request WHERE id = 1
SELECT req_time FROM request WHERE id = 1 UNION ALL SELECT 1
SELECT 1 UNION ALL SELECT req_time FROM request WHERE id = 1
SELECT CAST(1.5393096208572388e0 AS FLOAT), CAST(1e0 / 3 AS FLOAT), CONCAT(CAST(1e0 / 3 AS FLOAT)), CAST(1234565 AS FLOAT), CAST(123456.5e0 AS FLOAT), CAST(1e15 AS FLOAT), CAST(1e14 AS FLOAT), CAST(1e-15 AS FLOAT), CAST(1e-16 AS FLOAT), CAST(-2.6069672642847763e-08 AS FLOAT)
-- MIN/MAX of a FLOAT: 23 long, but 12 (a copy of the column's field) grouped over base tables.
SELECT MAX(req_time), MIN(ru_utime), CONCAT(MAX(req_time)) FROM request
SELECT script_name, MAX(req_time), MIN(doc_size) FROM request GROUP BY script_name ORDER BY script_name
SELECT script_name, MAX(req_time) FROM (SELECT * FROM request) t GROUP BY script_name ORDER BY script_name
SELECT script_name, MAX(req_time) FROM request GROUP BY script_name WITH ROLLUP
-- FORMAT's length: the integer digits its argument's type may hold, separators, decimals.
SELECT FORMAT(req_time, 2), FORMAT(req_time, 0), FORMAT(req_time + 0, 3), FORMAT(status, 1), FORMAT(1.25, 1), FORMAT(req_time, NULL), FORMAT('12.5', 1), FORMAT(NULL, 2) FROM request ORDER BY id LIMIT 2
SELECT FORMAT(COUNT(*), 0), FORMAT(SUM(status), 1), FORMAT(AVG(req_time), 2) FROM request
SELECT RANK() OVER (ORDER BY id), ROW_NUMBER() OVER (ORDER BY id), DENSE_RANK() OVER (ORDER BY id), NTILE(2) OVER (ORDER BY id), SHA2('a', 256), SHA2('a', 512), SHA2('a', 224), SHA2('a', 384), SHA2('a', 0), SHA2('a', status) FROM request ORDER BY id LIMIT 1
SELECT status, ROW_NUMBER() OVER (PARTITION BY status ORDER BY id), NTILE(3) OVER (ORDER BY id) FROM request ORDER BY status, id LIMIT 3
SELECT CAST(1.5393096208572388e0 AS FLOAT) + 0, CAST('1.5393096208572388' AS FLOAT) * 1, CAST(NULL AS FLOAT), CAST(req_time AS FLOAT) + 0 FROM request ORDER BY id LIMIT 2
-- A part of a date or a time (MariaDB's `Type_handler_long_ge0`): all digits, a sign more in a table's field
SELECT HOUR(FROM_UNIXTIME(timestamp)) h, COUNT(*) FROM request GROUP BY h
SELECT DISTINCT YEAR(FROM_UNIXTIME(timestamp)), QUARTER(FROM_UNIXTIME(timestamp)), DAYOFYEAR(FROM_UNIXTIME(timestamp)), TO_DAYS(FROM_UNIXTIME(timestamp)), WEEKDAY(FROM_UNIXTIME(timestamp)), YEARWEEK(FROM_UNIXTIME(timestamp)) FROM request
SELECT HOUR(FROM_UNIXTIME(timestamp)) + 0, MONTH(FROM_UNIXTIME(timestamp)) DIV 2, ABS(HOUR(FROM_UNIXTIME(timestamp))), ROUND(MINUTE(FROM_UNIXTIME(timestamp))), ROUND(HOUR(FROM_UNIXTIME(timestamp)), -1), FLOOR(SECOND(FROM_UNIXTIME(timestamp))), CAST(DAY(FROM_UNIXTIME(timestamp)) AS SIGNED), CAST(HOUR(FROM_UNIXTIME(timestamp)) AS CHAR), IFNULL(WEEK(FROM_UNIXTIME(timestamp)), 0), HOUR(FROM_UNIXTIME(timestamp)) / 2 FROM request ORDER BY id LIMIT 2
SELECT MIN(HOUR(FROM_UNIXTIME(timestamp))), MAX(YEAR(FROM_UNIXTIME(timestamp))) + 1, SUM(MONTH(FROM_UNIXTIME(timestamp))), AVG(DAY(FROM_UNIXTIME(timestamp))) FROM request GROUP BY status ORDER BY status
SELECT EXTRACT(YEAR FROM FROM_UNIXTIME(timestamp)) y, EXTRACT(YEAR_MONTH FROM FROM_UNIXTIME(timestamp)) ym, EXTRACT(QUARTER FROM FROM_UNIXTIME(timestamp)) q, EXTRACT(DAY FROM FROM_UNIXTIME(timestamp)) d, COUNT(*) FROM request GROUP BY y, ym, q, d
SELECT EXTRACT(DAY FROM 1), EXTRACT(DAY FROM '2024-03-05'), EXTRACT(DAY FROM DATE '2024-03-05'), EXTRACT(QUARTER FROM 20240101), EXTRACT(WEEK FROM DATE '2024-03-05')
SELECT HOUR(FROM_UNIXTIME(timestamp)) x FROM request UNION SELECT YEAR(FROM_UNIXTIME(timestamp)) FROM request
SELECT x FROM (SELECT DISTINCT MINUTE(FROM_UNIXTIME(timestamp)) x FROM request) t ORDER BY x LIMIT 1
-- The variances: twice their operand's digits (MariaDB's `Item_sum_variance`)
SELECT STD(1), STD(1.5), STD(NULL), STD(status + 1), STD(status * 1.5), STD(LENGTH(script_name)), STD(id), VARIANCE(HOUR(FROM_UNIXTIME(timestamp))), VAR_SAMP(~status) FROM request
-- A derived table's and a CTE's computed columns are named by their text
SELECT * FROM (SELECT status DIV 100, CAST(status AS CHAR), EXTRACT(DAY FROM 1), AVG(req_time) FROM request GROUP BY status ORDER BY status LIMIT 1) t
WITH c AS (SELECT status DIV 100, IFNULL(NULL, 2) FROM request LIMIT 1) SELECT * FROM c
SELECT `status DIV 100` FROM (SELECT status DIV 100 FROM request ORDER BY id LIMIT 1) t
-- A column is named as it is written; a string with a charset introducer or N by its value; a character past the BMP as ?
SELECT Script_Name, `STATUS`, r.Hostname FROM request r ORDER BY id LIMIT 1
SELECT Status, COUNT(*) AS Cnt FROM request GROUP BY Status ORDER BY Cnt DESC, Status LIMIT 2
SELECT table_name, TABLE_SCHEMA FROM information_schema.tables WHERE table_name = 'tag'
SELECT N'y', _utf8mb4'x', _latin1'z', _binary'wé', 'a' 'b', '😀', CONCAT('𝄞', 'x')
-- WITH ROLLUP by an expression, an alias of one, or a position
SELECT HOUR(FROM_UNIXTIME(timestamp)) AS h, COUNT(*) AS c, SUM(req_time) FROM request GROUP BY h WITH ROLLUP
SELECT HOUR(FROM_UNIXTIME(timestamp)), COUNT(*) FROM request GROUP BY HOUR(FROM_UNIXTIME(timestamp)) WITH ROLLUP
SELECT status DIV 100 AS cls, hostname, COUNT(*) FROM request GROUP BY cls, hostname WITH ROLLUP
SELECT hostname, status DIV 100 AS cls, COUNT(*) FROM request GROUP BY 1, 2 WITH ROLLUP
SELECT LOWER(hostname) h, COUNT(*) FROM request GROUP BY h WITH ROLLUP HAVING COUNT(*) > 1
-- An outer join's side that may have no row sends its columns NULL-able
SELECT a.script_name, a.c, b.c FROM (SELECT script_name, COUNT(*) c FROM request WHERE status = 200 GROUP BY script_name) a LEFT JOIN (SELECT script_name, COUNT(*) c FROM request WHERE status <> 200 GROUP BY script_name) b ON a.script_name = b.script_name ORDER BY a.script_name
SELECT a.c, b.c FROM (SELECT script_name, COUNT(*) c FROM request GROUP BY script_name) a RIGHT JOIN (SELECT script_name, COUNT(*) c FROM request GROUP BY script_name) b ON a.script_name = b.script_name ORDER BY b.c
SELECT b.d + 1, IFNULL(b.d, 0) FROM (SELECT script_name, COUNT(*) c FROM request GROUP BY script_name) a LEFT JOIN (SELECT script_name s, COUNT(*) d FROM request GROUP BY script_name) b ON a.script_name = b.s ORDER BY a.c
-- A grouped select ordered by an aggregate, ties broken by a position (MariaDB's ties follow the
-- order its rows arrived in, which the copied traffic does not fix)
SELECT r.Script_Name AS Script, COUNT(*) AS Cnt FROM request AS r GROUP BY r.Script_Name ORDER BY Cnt DESC, 1 LIMIT 3
SELECT FOUND_ROWS(), ROW_COUNT(), LAST_INSERT_ID(), SESSION_USER() IS NULL, LENGTH(SYSTEM_USER()) > 0
-- A part of a date cast AS UNSIGNED keeps its length
SELECT CAST(EXTRACT(YEAR FROM FROM_UNIXTIME(timestamp)) AS UNSIGNED) AS y, CAST(EXTRACT(YEAR_MONTH FROM FROM_UNIXTIME(timestamp)) AS UNSIGNED) AS ym, CAST(HOUR(FROM_UNIXTIME(timestamp)) AS UNSIGNED) AS h FROM request ORDER BY id LIMIT 1
-- information_schema's and SHOW's columns declared as MariaDB declares them (VARCHAR(64) NOT NULL, BIGINT UNSIGNED, …); SHOW … LIKE reads a backslash as MySQL does
SHOW TABLES LIKE 'request'
SHOW TABLES LIKE 'req\_est'
SHOW FULL TABLES LIKE 'request'
SHOW COLUMNS FROM request LIKE 'script\_name'
SHOW VARIABLES LIKE 'max\_allowed\_packet'
SHOW PROCEDURE STATUS WHERE Db = 'pinba'
SHOW FUNCTION STATUS WHERE Db = 'pinba'
SHOW TABLE STATUS WHERE Name = 'nothing'
SELECT CHARACTER_SET_NAME, DEFAULT_COLLATE_NAME, MAXLEN FROM information_schema.CHARACTER_SETS WHERE CHARACTER_SET_NAME = 'utf8mb4'
SELECT MAX(ORDINAL_POSITION), COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = 'request'
SELECT COLUMN_NAME, IS_NULLABLE, COLUMN_TYPE, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = 'tag' ORDER BY ORDINAL_POSITION
SELECT UPPER(TABLE_NAME), CONCAT(TABLE_SCHEMA, '.', TABLE_NAME) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME = 'timer'
SELECT t.TABLE_NAME, c.COLUMN_NAME FROM information_schema.TABLES t JOIN information_schema.COLUMNS c ON c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME WHERE t.TABLE_SCHEMA = 'pinba' AND t.TABLE_NAME = 'tag' ORDER BY c.ORDINAL_POSITION
SELECT s.SCHEMA_NAME, t.TABLE_NAME FROM information_schema.SCHEMATA s LEFT JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = s.SCHEMA_NAME AND t.TABLE_NAME = 'request' WHERE s.SCHEMA_NAME = 'pinba'
SELECT ROUTINE_NAME, ROUTINE_TYPE, CREATED FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'pinba'
SELECT TRIGGER_NAME, ACTION_ORDER, CREATED FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'pinba'
SELECT INDEX_NAME, SEQ_IN_INDEX, NON_UNIQUE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'pinba'
-- value (timertag's column) is a name in a function's arguments, not JSON's named-argument operator
SELECT SUM(CASE value WHEN 'GET' THEN 1 ELSE 0 END), COUNT(*) FROM timertag
SELECT tag_id, COUNT(CASE value WHEN 'GET' THEN 1 END), MAX(CASE value WHEN NULL THEN 1 ELSE 2 END) FROM timertag GROUP BY tag_id ORDER BY tag_id
SELECT BIT_XOR(TRUNCATE(CASE value WHEN NULL THEN 1 ELSE 1 END, 1)) FROM timertag
SELECT CONCAT(CASE value WHEN 'x' THEN 'a' ELSE value END) AS v FROM timertag ORDER BY v LIMIT 3
-- FLOOR and CEILING of a DECIMAL of more than 18 whole digits are DECIMALs: what is computed with them stays exact
SELECT CEILING(99999999999999999999.5), CEILING(99999999999999999999.5) + 1, FLOOR(-99999999999999999999.5) - 1, CEILING(1234567890123456.5) + 1, CEILING(12345678901234567.5) * 2, FLOOR(123456789012345678.5) + 1
SELECT 1 + CEILING(COALESCE(1.5, -9223372036854775808)), FLOOR(COALESCE(1.5, -9223372036854775808)) * 2, CEIL(12345678901234567890.25) DIV 3, FLOOR(12345678901234567890.25) = 12345678901234567890, SUM(FLOOR(12345678901234567890.25 + id)) FROM request
SELECT FLOOR(CAST(status AS DECIMAL(30,2))) + 1, CEILING(SUM(id) * 1.5) FROM request
-- LIMIT and OFFSET take an unsigned integer as written: anything else is a syntax error (SQLite's LIMIT -1 sent every row)
=SELECT id FROM request ORDER BY id LIMIT '5'
=SELECT id FROM request ORDER BY id LIMIT -1
=SELECT id FROM request ORDER BY id LIMIT 1+1
=SELECT id FROM request ORDER BY id LIMIT 2 OFFSET '1'
=SELECT id FROM request ORDER BY id LIMIT 2.5
-- WITH ROLLUP by an alias of a column
SELECT hostname AS h, COUNT(*) FROM request GROUP BY h WITH ROLLUP
SELECT hostname AS h, status AS s, COUNT(*) FROM request GROUP BY h, s WITH ROLLUP HAVING h IS NULL OR s > 0
-- An index hint naming an index: pinbad's tables have none (1176, the last name of the first hinted table)
=SELECT COUNT(*) FROM request FORCE INDEX (PRIMARY)
=SELECT 1 FROM request r USE INDEX (k) LIMIT 1
=SELECT 1 FROM request IGNORE INDEX (k1, k2) JOIN timer USE KEY FOR ORDER BY (j) LIMIT 1
SHOW ERRORS
SELECT @@error_count, @@warning_count
SHOW COUNT(*) ERRORS
SELECT COUNT(*) FROM request USE INDEX ()
SHOW ERRORS
-- Division by zero: NULL and warning 1365 per division; the diagnostics outlive a statement that reads no table
SELECT 1/0, 5 DIV 0, 5 MOD 0, 5.0/0, 5e0/0, 5/'0', 5/NULL, 5.5 DIV 0, 5 % 0.0
SHOW WARNINGS
SELECT 2
SELECT @@warning_count
SHOW COUNT(*) WARNINGS
SELECT COUNT(*) FROM request
SHOW COUNT(*) WARNINGS
SELECT id, status / 0, status DIV 0 FROM request ORDER BY id LIMIT 3
SHOW WARNINGS
SHOW COUNT(*) WARNINGS
SELECT SUM(req_time / 0), SUM(status MOD (id - id)), COUNT(*) FROM request
SHOW COUNT(*) WARNINGS
SHOW WARNINGS
SET @dz = 5 DIV 0
SHOW WARNINGS
DO 1/0
SHOW WARNINGS
=SELECT * FROM nosuch
SHOW WARNINGS
SHOW ERRORS
-- The server's own names are utf8mb3 strings: CHARSET and COLLATION of them, and of USER() and DATABASE()
SELECT COLLATION(COLLATION(NULL)), CHARSET(COLLATION(1)), COERCIBILITY(COLLATION(1)), COERCIBILITY(CHARSET(1)), CHARSET(CHARSET('a'))
SELECT COLLATION(USER()), CHARSET(VERSION()), COLLATION(DATABASE()), COERCIBILITY(USER()), COERCIBILITY(DATABASE())
SELECT COLLATION('a' COLLATE utf8mb4_bin) = 'UTF8MB4_BIN', CHARSET(hostname COLLATE utf8mb4_bin) = 'UTF8MB4', COLLATION(hostname) = 'UTF8MB4_GENERAL_CI' FROM request LIMIT 1
SELECT COERCIBILITY(HEX(value)), COERCIBILITY(MD5(value)), COERCIBILITY(TO_BASE64(value)), COERCIBILITY(CONV(value, 10, 2)), COERCIBILITY(FORMAT(timer_id, value)), COERCIBILITY(DAYNAME(value)) FROM timertag LIMIT 1
SELECT COERCIBILITY(LEFT('abc', value)), COERCIBILITY(LEFT(value, 1)), COERCIBILITY(SUBSTRING('abc', value)), COERCIBILITY(LPAD('a', value, 'b')), COERCIBILITY(INSERT('abc', 1, 1, value)), COERCIBILITY(REPEAT('a', value)) FROM timertag LIMIT 1
SELECT COERCIBILITY(CASE value WHEN 'a' THEN 'b' END), COERCIBILITY(IF(value, 'a', 'b')), COERCIBILITY(ELT(1, value)), COERCIBILITY(NULLIF('a', value)), COERCIBILITY(MAKE_SET(value, 'a')) FROM timertag LIMIT 1
SELECT COERCIBILITY(DATE_FORMAT(value, '%Y')), COERCIBILITY(DATE_FORMAT('2024-03-05', value)), COERCIBILITY(DATE_ADD(value, INTERVAL 1 DAY)), COERCIBILITY(value + INTERVAL 1 DAY), COERCIBILITY(ADDTIME(value, '1')), COERCIBILITY(CONVERT(timer_id USING utf8mb4)) FROM timertag LIMIT 1
SELECT GREATEST(JSON_UNQUOTE('"\u00e9"'), TO_BASE64(value)), LEAST(JSON_UNQUOTE('"a"'), HEX(value)) FROM timertag ORDER BY 1 LIMIT 3
SELECT LEFT('abcdef', 2.5e0), RIGHT('abcdef', 0.5e0), SUBSTRING('abcdef', 2.5e0, 2.5e0), SUBSTRING('abcdef' FROM 3.5e0 FOR 0.5e0), MID('abcdef', 1.5e0, 1.5e0)
SELECT MAKE_SET(2.5e0, 'a', 'b', 'c'), MAKE_SET(0.5e0, 'a', 'b'), MAKE_SET(1.5, 'a', 'b'), EXPORT_SET(2.5e0, 'Y', 'N', ',', 4.5e0), CONV(10, 10.5e0, 2)
SELECT LEFT(script_name, req_time * 2), MAKE_SET(req_time * 2, 'a', 'b', 'c', 'd', 'e', 'f') FROM request ORDER BY timestamp, req_time LIMIT 5
SELECT CHARSET(NULL), CHARSET(1), CHARSET('a'), CHARSET(_binary'a'), COLLATION('a'), COLLATION(script_name), CHARSET(script_name) FROM request LIMIT 1
-- MAKE_SET and EXPORT_SET read their strings as strings: a FLOAT column as MySQL writes it
SELECT MAKE_SET(3, req_time, doc_size, 'x') FROM request ORDER BY id LIMIT 3
SELECT EXPORT_SET(5, req_time, 0.5e0, ',', 4), EXPORT_SET(5, 'Y', 'N', req_time, 3) FROM request ORDER BY id LIMIT 3
-- HAVING reads a name as the select list's alias before the tables' column, unless GROUP BY names that column bare
SELECT status DIV 100 AS status, COUNT(*) FROM request GROUP BY status HAVING status > 2 ORDER BY 1, 2
SELECT status DIV 100 AS status, COUNT(*) FROM request GROUP BY 1 HAVING status > 2 ORDER BY 1, 2
SELECT status DIV 100 AS status, COUNT(*) FROM request GROUP BY status DIV 100 HAVING status > 2 ORDER BY 1, 2
SELECT hostname AS status, COUNT(*) FROM request GROUP BY hostname HAVING status > 300 ORDER BY 1, 2
SELECT hostname AS status, COUNT(*) FROM request GROUP BY hostname HAVING status LIKE 'h%' ORDER BY 1, 2
SELECT MAX(req_time) AS req_time, hostname FROM request GROUP BY hostname HAVING req_time > 2.9 AND MAX(req_time) > 1 ORDER BY 2
SELECT COUNT(*) AS status, hostname FROM request GROUP BY hostname HAVING status > 50 AND SUM(status) > 0 ORDER BY 2
SELECT script_name AS hostname, COUNT(*) FROM request GROUP BY script_name HAVING hostname IN (SELECT hostname FROM request) ORDER BY 1
SELECT status DIV 100 AS status, COUNT(*) FROM request GROUP BY 1 WITH ROLLUP HAVING status > 2 OR status IS NULL
-- A user variable assigned a DECIMAL is a DECIMAL: ROUND and CAST of it round an exact value half away from zero
SET @d = 2.5
SELECT ROUND(@d), FLOOR(@d), CAST(@d AS SIGNED), @d = 2.5, TRUNCATE(@d, 0), @d > 2
SET @d = 1.25
SELECT ROUND(@d, 1), ROUND(@d * 1, 1)
SELECT SUM(CAST(status AS DECIMAL(10,2))) INTO @s FROM request
SELECT ROUND(@s / 7, 1)
-- What monitoring tools and GUI clients read of the server: its figures for one connection, replication and profiling (none), open tables, the variables' and status' information_schema tables
SHOW STATUS LIKE 'Threads_connected'
SHOW GLOBAL STATUS WHERE Variable_name IN ('Threads_connected', 'Threads_running', 'Ssl_cipher')
SHOW MASTER STATUS
SHOW SLAVE STATUS
SHOW ALL SLAVES STATUS
SHOW REPLICA STATUS
SHOW PROFILES
=SHOW BINARY LOGS
SHOW OPEN TABLES FROM pinba LIKE 'req%'
SELECT * FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'pinba' AND TABLE_NAME = 'request'
SELECT TABLE_NAME, PARTITION_NAME, PARTITION_METHOD, PARTITION_ORDINAL_POSITION, TABLESPACE_NAME FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = 'pinba' AND TABLE_NAME IN ('request', 'timer')
SELECT * FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('THREADS_CONNECTED', 'THREADS_RUNNING')
SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.SESSION_VARIABLES WHERE VARIABLE_NAME IN ('AUTOCOMMIT', 'SQL_MODE', 'MAX_ALLOWED_PACKET')
SET time_zone = '+05:00'
SELECT VARIABLE_VALUE FROM information_schema.SESSION_VARIABLES WHERE VARIABLE_NAME = 'time_zone'
SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME = 'time_zone'
SHOW GLOBAL VARIABLES LIKE 'time_zone'
SHOW VARIABLES LIKE 'time_zone'
SET time_zone = 'SYSTEM'
-- Named locks, as cron jobs take them: the session's own taken again, each taking released once; names compare byte by byte; a name is a string (4079)
SELECT GET_LOCK('pinba-cron', 0), GET_LOCK('pinba-cron', 0), IS_FREE_LOCK('pinba-cron'), IS_USED_LOCK('pinba-cron') = CONNECTION_ID(), IS_FREE_LOCK('PINBA-CRON')
SELECT RELEASE_LOCK('pinba-cron'), RELEASE_LOCK('pinba-cron'), RELEASE_LOCK('pinba-cron'), IS_FREE_LOCK('pinba-cron'), IS_USED_LOCK('pinba-cron')
SELECT GET_LOCK(NULL, 0), GET_LOCK('', 0), GET_LOCK('a', NULL), RELEASE_LOCK(NULL), IS_FREE_LOCK(NULL), IS_USED_LOCK(NULL)
SELECT GET_LOCK('b', 1.5), GET_LOCK('c', -0.5), GET_LOCK('d', -1)
SHOW WARNINGS
SELECT RELEASE_ALL_LOCKS(), RELEASE_ALL_LOCKS()
SELECT COUNT(*), SUM(GET_LOCK(script_name, 0)) FROM request
SELECT RELEASE_ALL_LOCKS()
DO GET_LOCK('job', 0)
SELECT IS_USED_LOCK('job') = CONNECTION_ID(), RELEASE_LOCK('job') + 0, IS_FREE_LOCK('job')
=SELECT RELEASE_ALL_LOCKS() - 1
=SELECT GET_LOCK(1, 0)
=SELECT GET_LOCK(2.5, 0)
=SELECT IS_FREE_LOCK(req_time) FROM request
=SELECT RELEASE_LOCK(NOW())
=SELECT IS_USED_LOCK(CAST(1 AS UNSIGNED))
-- LOG2 is MariaDB's log(x) / ln 2, which differs from a libm log2 in the last digit
SELECT LOG2(31), CAST(LOG2(31) AS CHAR), LOG2(7), LOG2(0.3)
SELECT CAST(LOG2(status) AS CHAR), COUNT(*) FROM request GROUP BY 1 ORDER BY 1
-- SHOW WARNINGS and SHOW ERRORS read their LIMIT
SELECT 1/0, 2/0, 3 DIV 0
SHOW WARNINGS LIMIT 1
SHOW WARNINGS LIMIT 1, 5
SHOW WARNINGS LIMIT 0
SHOW COUNT(*) WARNINGS
SHOW WARNINGS LIMIT 2 OFFSET 1
=SELECT * FROM nosuch
SHOW ERRORS LIMIT 1
SHOW ERRORS LIMIT 1, 1
-- LEAST and GREATEST compare integers exactly, a BIGINT UNSIGNED past 2^63 among them
SELECT LEAST(9223372036854775808, 9223372036854775807), GREATEST(9223372036854775808, 9223372036854775807), GREATEST(9223372036854775808, -1), LEAST(18446744073709551615, 0, -5)
SELECT LEAST(9223372036854775808, 9223372036854775807, id) FROM request ORDER BY id LIMIT 2
SELECT GREATEST(18446744073709551614, 18446744073709551615), LEAST(18446744073709551614, 18446744073709551615), LEAST('10', 9), GREATEST(2, '10')
-- A string past a DOUBLE's range is the largest DOUBLE of its sign (MySQL's my_strtod)
SELECT (SHA2('a_c', 256) IN (1.7976931348623157e308, NULL)), '-1e999' = -1.7976931348623157e308, '1e999' > 1e308
-- Percentiles: PERCENTILE_CONT/PERCENTILE_DISC WITHIN GROUP … OVER (PARTITION BY …), MEDIAN, and their errors
=SELECT PERCENTILE_CONT(1.5) WITHIN GROUP (ORDER BY req_time) OVER () FROM request LIMIT 1
=SELECT PERCENTILE_CONT(NULL) WITHIN GROUP (ORDER BY req_time) OVER () FROM request LIMIT 1
=SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY NULL) OVER () FROM request LIMIT 1
=SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY req_time) FROM request
=SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY req_time) OVER (ORDER BY id) FROM request
=SELECT PERCENTILE_CONT(status/1000) WITHIN GROUP (ORDER BY req_time) OVER () FROM request LIMIT 1
=SELECT PERCENTILE_CONT('0.5') WITHIN GROUP (ORDER BY req_time) OVER () FROM request LIMIT 1
SELECT PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY FROM_UNIXTIME(timestamp)) OVER () FROM request LIMIT 1
=SELECT MEDIAN(hostname) OVER () FROM request LIMIT 1
SELECT PERCENTILE_CONT(0.3) WITHIN GROUP (ORDER BY doc_size) OVER (), PERCENTILE_CONT(0.3) WITHIN GROUP (ORDER BY id) OVER (), PERCENTILE_DISC(0.3) WITHIN GROUP (ORDER BY id) OVER (), MEDIAN(1.5) OVER (), MEDIAN(id*1.5) OVER () FROM request LIMIT 1
SELECT PERCENTILE_CONT(0.999) WITHIN GROUP (ORDER BY req_time) OVER () a, PERCENTILE_CONT(1) WITHIN GROUP (ORDER BY req_time) OVER () b, PERCENTILE_CONT(0) WITHIN GROUP (ORDER BY status) OVER () c, PERCENTILE_CONT(0.5e0) WITHIN GROUP (ORDER BY status) OVER () d FROM request LIMIT 1
SELECT PERCENTILE_CONT(0.25) WITHIN GROUP (ORDER BY IF(id%2, NULL, id)) OVER () e, PERCENTILE_DISC(0.25) WITHIN GROUP (ORDER BY IF(id%2, NULL, id)) OVER () f, PERCENTILE_CONT(0.25) WITHIN GROUP (ORDER BY IF(id%2, NULL, id) DESC) OVER () g, PERCENTILE_DISC(0.25) WITHIN GROUP (ORDER BY IF(id%2, NULL, id) DESC) OVER () g2, PERCENTILE_CONT(0.9) WITHIN GROUP (ORDER BY IF(id%2, NULL, id)) OVER () g3, PERCENTILE_DISC(0.9) WITHIN GROUP (ORDER BY IF(id%2, NULL, id) DESC) OVER () g5, PERCENTILE_CONT(0.25) WITHIN GROUP (ORDER BY id*1.25) OVER () h, PERCENTILE_DISC(0.25) WITHIN GROUP (ORDER BY id*1.25) OVER () i, PERCENTILE_DISC(0) WITHIN GROUP (ORDER BY id) OVER () j, PERCENTILE_DISC(1) WITHIN GROUP (ORDER BY id) OVER () k FROM request LIMIT 1
SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY id) OVER (PARTITION BY hostname) e FROM request WHERE id < 0
=SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY id) OVER w FROM request WINDOW w AS (PARTITION BY hostname) LIMIT 1
=SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY id, status) OVER () FROM request LIMIT 1
SELECT hostname, COUNT(*), PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY COUNT(*)) OVER () FROM request GROUP BY hostname ORDER BY hostname
SELECT script_name, ROUND(PERCENTILE_CONT(0.99) WITHIN GROUP (ORDER BY req_time) OVER (PARTITION BY script_name) * 1000, 1) AS p99_ms FROM request GROUP BY script_name, req_time ORDER BY 1, 2 LIMIT 10
SELECT DISTINCT script_name, MEDIAN(req_time) OVER (PARTITION BY script_name) AS med, PERCENTILE_CONT(0.9) WITHIN GROUP (ORDER BY req_time DESC) OVER (PARTITION BY script_name, hostname) p FROM request ORDER BY 1, 2, 3
SELECT * FROM (SELECT hostname, PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY status) OVER (PARTITION BY hostname) s FROM request) t GROUP BY hostname, s ORDER BY hostname
=SELECT MEDIAN(req_time) FROM request
=SELECT PERCENTILE_CONT(0.5) OVER () FROM request
SELECT value, PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY value) OVER (PARTITION BY hit_count) FROM timer ORDER BY 1, 2 LIMIT 5
-- BI tools' shapes: TIMESTAMP() and DATE_ADD() of strings, their digits; information_schema sorted as utf8mb3_general_ci
SELECT column_name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'request' ORDER BY column_name
SELECT ADDDATE(DATE_FORMAT(from_unixtime(`request`.`timestamp`), '%Y-%m-01 00:00:00'), INTERVAL 0 SECOND) AS `tmn:timestamp:ok`, SUM(`request`.`req_time`) AS `sum:req_time:ok` FROM `request` GROUP BY 1
SELECT TIMESTAMP(DATE_FORMAT(from_unixtime(`timestamp`), '%Y-%m-%d %H:00:00')) AS `thr`, COUNT(*) FROM `request` GROUP BY 1 ORDER BY 1
SELECT TIMESTAMP(CAST(req_time AS SIGNED)), TIMESTAMP(CAST(req_time AS DECIMAL(10,2))), TIMESTAMP(CONVERT(hostname, CHAR)), TIMESTAMP(TIME_FORMAT(FROM_UNIXTIME(timestamp), '%H')), TIMESTAMP(DATE_FORMAT(FROM_UNIXTIME(timestamp), '%Y'), '01:00:00') FROM request LIMIT 1
SELECT TIMESTAMP(FROM_UNIXTIME(timestamp), TIME_FORMAT(FROM_UNIXTIME(timestamp), '%H')), ADDTIME(FROM_UNIXTIME(timestamp), DATE_FORMAT(FROM_UNIXTIME(timestamp), '%H')), TIMESTAMP(FROM_UNIXTIME(timestamp), CAST(status AS CHAR)), TIMESTAMP(FROM_UNIXTIME(timestamp), status) FROM request LIMIT 1
SELECT DATE_ADD(CONCAT(DATE(FROM_UNIXTIME(timestamp)),''), INTERVAL 1 DAY) a, DATE_ADD(CONCAT(DATE(FROM_UNIXTIME(timestamp)),''), INTERVAL 1 HOUR) b, DATE_ADD(CONCAT(DATE(FROM_UNIXTIME(timestamp)),' 00:00:00.5'), INTERVAL 1 HOUR) c, DATE_ADD('2024-01-01 00:00:00.5', INTERVAL 1 HOUR) d, DATE_ADD('2024-01-01 00:00:00.5', INTERVAL 1 MICROSECOND) e, DATE_SUB(CONCAT(DATE(FROM_UNIXTIME(timestamp)),' 10:00'), INTERVAL '1:1' HOUR_MINUTE) f, ADDDATE(CONCAT(DATE(FROM_UNIXTIME(timestamp)),' 10:00'), 1) g, CONCAT(DATE(FROM_UNIXTIME(timestamp)),' 10:00') + INTERVAL 1 SECOND h FROM request LIMIT 1
SELECT DATE_ADD(DATE_FORMAT(FROM_UNIXTIME(timestamp), '%Y-%m-%d %H:%i:%s.%f'), INTERVAL 1 HOUR) i, TIMESTAMPADD(MINUTE, 1, CONCAT(DATE(FROM_UNIXTIME(timestamp)),' 00:00:00')) j FROM request LIMIT 1
SELECT ADDTIME(hostname, '01:00:00') a, DATE_ADD(hostname, INTERVAL 1 DAY) d, COUNT(*) FROM request GROUP BY 1, 2
SELECT DISTINCT ADDTIME(hostname, '01:00:00') a, DATE_ADD(hostname, INTERVAL 1 DAY) d FROM request
SELECT t.d FROM (SELECT DATE_ADD(hostname, INTERVAL 1 DAY) d FROM request) t LIMIT 1
SELECT DATE_ADD(hostname, INTERVAL 1 DAY) d FROM request UNION SELECT 'x'
SELECT DATE_ADD(hostname, INTERVAL 1 DAY) d FROM request UNION ALL SELECT DATE_ADD(hostname, INTERVAL 1 DAY) FROM request LIMIT 1
SELECT 'x' UNION ALL SELECT DATE_ADD(hostname, INTERVAL 1 DAY) d FROM request
SELECT MIN(DATE_FORMAT(FROM_UNIXTIME(timestamp), '%Y')) a, MAX(CAST(status AS CHAR)) b, MIN(hostname) c, MIN(CONCAT(hostname,'')) d, MAX(DATE_ADD(hostname, INTERVAL 1 DAY)) e, MIN(DATE_ADD('2024-01-01', INTERVAL 1 DAY)) f FROM request
SELECT str_to_date(date_format(from_unixtime(`request`.`timestamp`), '%Y-%m-%d %H:%i'), '%Y-%m-%d %H:%i') AS `timestamp`, count(*) AS `count` FROM `request` GROUP BY str_to_date(date_format(from_unixtime(`request`.`timestamp`), '%Y-%m-%d %H:%i'), '%Y-%m-%d %H:%i') ORDER BY str_to_date(date_format(from_unixtime(`request`.`timestamp`), '%Y-%m-%d %H:%i'), '%Y-%m-%d %H:%i') ASC
SELECT str_to_date(date_format(from_unixtime(`request`.`timestamp`), '%Y-%m-%d %H'), '%Y-%m-%d %H') AS `timestamp`, count(*) AS `count` FROM `request` GROUP BY 1 ORDER BY 1
SELECT date(from_unixtime(`request`.`timestamp`)) AS `timestamp`, avg(`request`.`req_time`) AS `avg` FROM `request` GROUP BY date(from_unixtime(`request`.`timestamp`)) ORDER BY date(from_unixtime(`request`.`timestamp`)) ASC
SELECT str_to_date(concat(yearweek(from_unixtime(`request`.`timestamp`)), ' Sunday'), '%X%V %W') AS `timestamp`, count(*) AS `count` FROM `request` GROUP BY 1 ORDER BY 1 ASC
SELECT str_to_date(concat(date_format(from_unixtime(`request`.`timestamp`), '%Y-%m'), '-01'), '%Y-%m-%d') AS `timestamp`, count(*) AS `count` FROM `request` GROUP BY 1 ORDER BY 1 ASC
SELECT str_to_date(concat(year(from_unixtime(`request`.`timestamp`)), '-', ((quarter(from_unixtime(`request`.`timestamp`)) * 3) - 2), '-01'), '%Y-%m-%d') AS `timestamp`, count(*) AS `count` FROM `request` GROUP BY 1 ORDER BY 1 ASC
SELECT makedate(year(from_unixtime(`request`.`timestamp`)), 1) AS `timestamp`, count(*) AS `count` FROM `request` GROUP BY 1 ORDER BY 1 ASC
SELECT dayofweek(from_unixtime(`request`.`timestamp`)) AS `timestamp`, count(*) AS `count` FROM `request` GROUP BY 1 ORDER BY 1 ASC
SELECT dayofyear(from_unixtime(`request`.`timestamp`)) AS d, week(from_unixtime(`request`.`timestamp`), 3) AS w, count(*) FROM `request` GROUP BY 1, 2 ORDER BY 1, 2
SELECT `source`.`script_name` AS `script_name`, `source`.`count` AS `count` FROM (SELECT `request`.`script_name` AS `script_name`, count(*) AS `count` FROM `request` GROUP BY `request`.`script_name` ORDER BY `count` DESC, `request`.`script_name` ASC) `source` WHERE `source`.`count` > 10 LIMIT 2000
SELECT count(distinct `request`.`hostname`) AS `count`, sum(`request`.`doc_size`) AS `sum`, std(`request`.`req_time`) AS `sd`, var_pop(`request`.`req_time`) AS `v` FROM `request`
SELECT CAST(`request`.`status` AS SIGNED) AS s, CAST(`request`.`req_time` AS DOUBLE) AS t FROM `request` ORDER BY id LIMIT 5
SELECT UNIX_TIMESTAMP(FROM_UNIXTIME(`timestamp`)) DIV 300 * 300 AS "time", count(*) AS "value" FROM request WHERE FROM_UNIXTIME(`timestamp`) BETWEEN FROM_UNIXTIME(1600000000) AND FROM_UNIXTIME(2000000000) GROUP BY 1 ORDER BY 1
SELECT UNIX_TIMESTAMP(FROM_UNIXTIME(`timestamp`)) DIV 60 * 60 AS "time", hostname AS metric, avg(req_time) AS value FROM request GROUP BY 1, 2 ORDER BY 1, 2
SELECT floor(`timestamp`/300)*300 AS "time", count(*) FROM request WHERE `timestamp` >= 1600000000 AND `timestamp` <= 2000000000 GROUP BY 1 ORDER BY 1
SELECT `timestamp` AS time_sec, req_time AS value, script_name AS metric FROM request WHERE `timestamp` >= 1600000000 ORDER BY `timestamp`, id LIMIT 10
SELECT column_name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'request' ORDER BY column_name
SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'timer' ORDER BY ordinal_position
SELECT DATE_ADD(DATE(from_unixtime(`timestamp`)), INTERVAL (HOUR(from_unixtime(`timestamp`))*60*60 + MINUTE(from_unixtime(`timestamp`))*60 + SECOND(from_unixtime(`timestamp`))) SECOND) AS __timestamp, COUNT(*) AS count FROM request GROUP BY 1 ORDER BY count DESC, 1 LIMIT 10
SELECT DATE_ADD(DATE(from_unixtime(`timestamp`)), INTERVAL (HOUR(from_unixtime(`timestamp`))*60 + MINUTE(from_unixtime(`timestamp`))) MINUTE) AS __timestamp, COUNT(*) AS count FROM request GROUP BY 1 ORDER BY 1
SELECT DATE_ADD(DATE(from_unixtime(`timestamp`)), INTERVAL HOUR(from_unixtime(`timestamp`)) HOUR) AS __timestamp, COUNT(*) AS count FROM request GROUP BY 1 ORDER BY 1
SELECT DATE(DATE_SUB(from_unixtime(`timestamp`), INTERVAL DAYOFWEEK(from_unixtime(`timestamp`)) - 1 DAY)) AS __timestamp, COUNT(*) FROM request GROUP BY 1
SELECT DATE(DATE_SUB(from_unixtime(`timestamp`), INTERVAL DAYOFMONTH(from_unixtime(`timestamp`)) - 1 DAY)) AS __timestamp, COUNT(*) FROM request GROUP BY 1
SELECT MAKEDATE(YEAR(from_unixtime(`timestamp`)), 1) + INTERVAL QUARTER(from_unixtime(`timestamp`)) QUARTER - INTERVAL 1 QUARTER AS __timestamp, COUNT(*) FROM request GROUP BY 1
SELECT DATE(DATE_SUB(from_unixtime(`timestamp`), INTERVAL DAYOFYEAR(from_unixtime(`timestamp`)) - 1 DAY)) AS __timestamp, COUNT(*) FROM request GROUP BY 1
SELECT DATE(DATE_SUB(from_unixtime(`timestamp`), INTERVAL DAYOFWEEK(DATE_SUB(from_unixtime(`timestamp`), INTERVAL 1 DAY)) - 1 DAY)) AS __timestamp, COUNT(*) FROM request GROUP BY 1
SELECT * FROM (SELECT script_name, status, req_time FROM request) AS virtual_table ORDER BY req_time DESC, script_name LIMIT 5
SELECT DISTINCT server_name FROM request ORDER BY server_name LIMIT 1000
SELECT col.table_schema as table_schema, col.table_name as table_name, col.column_name as column_name FROM information_schema.columns col WHERE col.table_schema NOT IN ('information_schema', 'performance_schema', 'mysql', 'sys') AND col.table_name IN ('request','timer') ORDER BY 2, 3
SELECT `request`.`status` AS `status`, SUM(1) AS `sum:Number of Records:ok` FROM `request` GROUP BY 1 ORDER BY 1
SELECT ADDDATE(DATE_FORMAT(from_unixtime(`request`.`timestamp`), '%Y-%m-01 00:00:00'), INTERVAL 0 SECOND) AS `tmn:timestamp:ok`, SUM(`request`.`req_time`) AS `sum:req_time:ok` FROM `request` GROUP BY 1
SELECT TIMESTAMP(DATE_FORMAT(from_unixtime(`timestamp`), '%Y-%m-%d %H:00:00')) AS `thr`, COUNT(*) FROM `request` GROUP BY 1 ORDER BY 1
SELECT (YEAR(from_unixtime(`timestamp`)) * 10000 + MONTH(from_unixtime(`timestamp`)) * 100 + DAYOFMONTH(from_unixtime(`timestamp`))) AS `md`, COUNT(*) FROM `request` GROUP BY 1
SELECT TRUNCATE(`request`.`req_time`, 2) AS t, COUNT(*) FROM `request` GROUP BY 1 ORDER BY 1 LIMIT 10
SELECT `request`.`hostname` AS `hostname` FROM `request` WHERE 1=0
SELECT DATE_FORMAT(from_unixtime(`timestamp`), '%Y-01-01 00:00:00') AS y, COUNT(*) FROM request GROUP BY 1
SELECT CAST(from_unixtime(`timestamp`) AS DATE) AS d, COUNT(*) FROM request GROUP BY 1
SELECT DATE(DATE_ADD(from_unixtime(`timestamp`), INTERVAL (0 - MOD((DAYOFWEEK(from_unixtime(`timestamp`)) - 1) - 1 + 7, 7)) day)) AS wk, COUNT(*) FROM request GROUP BY 1
SELECT COALESCE(SUM(req_time), 0) AS total, COALESCE(SUM(CASE WHEN status >= 500 THEN 1 ELSE 0 END), 0) AS errors FROM request
SELECT CONV(SUBSTR(MD5(id),1,16),16,10) AS a, CAST(CONV(SUBSTR(MD5(id),17,16),16,10) AS DECIMAL(65)) AS b FROM request ORDER BY id LIMIT 3
SELECT COALESCE(ROUND(COALESCE(CAST((SUM(DISTINCT (CAST(ROUND(COALESCE(request.req_time,0)*(1/1000*1.0), 9) AS DECIMAL(65,0))) + (CAST(CONV(SUBSTR(MD5(request.id),1,16),16,10) AS DECIMAL(65)) *1.0e8 + CAST(CONV(SUBSTR(MD5(request.id),17,16),16,10) AS DECIMAL(65))) ) - SUM(DISTINCT (CAST(CONV(SUBSTR(MD5(request.id),1,16),16,10) AS DECIMAL(65)) *1.0e8 + CAST(CONV(SUBSTR(MD5(request.id),17,16),16,10) AS DECIMAL(65)))) ) AS DOUBLE)/(1/1000*1.0), 0), 6), 0) AS total FROM request
SELECT DATE_FORMAT(from_unixtime(`timestamp`),'%Y-%m') AS m, DATE_FORMAT(from_unixtime(`timestamp`),'%Y-%m-%d %H') AS h, COUNT(*) FROM request GROUP BY 1, 2 ORDER BY 1, 2
SELECT hostname, ROUND(AVG(req_time)*1000, 2) AS avg_ms, ROUND(MAX(req_time)*1000, 2) AS max_ms FROM request GROUP BY hostname HAVING COUNT(*) > 5 ORDER BY avg_ms DESC
SELECT CONCAT(ROUND(100 * SUM(status >= 500) / COUNT(*), 2), '%') AS err_rate FROM request
SELECT IF(status >= 500, 'error', IF(status >= 400, 'client', 'ok')) AS kind, COUNT(*) FROM request GROUP BY kind ORDER BY kind
SELECT script_name, COUNT(*) c, SUM(req_time) s, SUM(req_time)/COUNT(*) a FROM request GROUP BY script_name WITH ROLLUP
SELECT FROM_UNIXTIME(`timestamp`, '%Y-%m-%d %H:%i:00') AS minute, COUNT(*) FROM request GROUP BY minute ORDER BY minute DESC LIMIT 5
SELECT NOW() > FROM_UNIXTIME(`timestamp`) AS past, COUNT(*) FROM request GROUP BY 1
SELECT TIMESTAMPDIFF(SECOND, FROM_UNIXTIME(MIN(`timestamp`)), FROM_UNIXTIME(MAX(`timestamp`))) AS span FROM request
SELECT SEC_TO_TIME(MAX(`timestamp`) - MIN(`timestamp`)) AS span, TIME_FORMAT(SEC_TO_TIME(3725), '%H:%i') FROM request
SELECT CONVERT_TZ(FROM_UNIXTIME(0), '+00:00', '+03:00'), CONVERT_TZ('2024-01-01 00:00:00', 'UTC', 'Europe/Moscow')
SELECT UTC_TIMESTAMP() >= NOW() - INTERVAL 1 DAY, CURDATE() = DATE(NOW()), YEAR(CURRENT_DATE) > 2000
SELECT `status`, COUNT(*) AS `n` FROM `request` WHERE `status` IN ('200', '404', 500) GROUP BY `status` ORDER BY `status`
SELECT CAST(AVG(req_time) AS DECIMAL(10,4)) AS a, FORMAT(SUM(doc_size), 0) AS s, FORMAT(AVG(req_time), 3, 'de_DE') AS f FROM request
SELECT SUBSTRING_INDEX(script_name, '/', 2) AS dir, COUNT(*) FROM request GROUP BY dir ORDER BY dir
SELECT LOWER(hostname) AS h, UPPER(LEFT(server_name, 3)) AS s, LENGTH(script_name) AS l FROM request ORDER BY id LIMIT 5
SELECT script_name, req_time, RANK() OVER (PARTITION BY script_name ORDER BY req_time DESC) AS r FROM request ORDER BY script_name, r, id LIMIT 10
SELECT hostname, COUNT(*) AS n, SUM(COUNT(*)) OVER () AS total FROM request GROUP BY hostname ORDER BY hostname
SELECT status, COUNT(*) AS n, ROUND(COUNT(*) * 100.0 / SUM(COUNT(*)) OVER (), 2) AS pct FROM request GROUP BY status ORDER BY status
SELECT script_name, AVG(req_time) AS a, LAG(AVG(req_time)) OVER (ORDER BY script_name) AS prev FROM request GROUP BY script_name ORDER BY script_name
SELECT GROUP_CONCAT(DISTINCT hostname ORDER BY hostname SEPARATOR ', ') FROM request
SELECT COUNT(*) FROM request WHERE script_name LIKE '%.php' AND hostname NOT LIKE 'db%' AND status BETWEEN 200 AND 299
SELECT COUNT(*) FROM request WHERE script_name REGEXP '^/api/' OR script_name RLIKE 'index'
SELECT EXTRACT(HOUR FROM FROM_UNIXTIME(`timestamp`)) AS h, EXTRACT(YEAR_MONTH FROM FROM_UNIXTIME(`timestamp`)) ym, COUNT(*) FROM request GROUP BY 1, 2
SELECT LAST_DAY(FROM_UNIXTIME(`timestamp`)) ld, WEEKDAY(FROM_UNIXTIME(`timestamp`)) wd, DAYNAME(FROM_UNIXTIME(`timestamp`)) dn, MONTHNAME(FROM_UNIXTIME(`timestamp`)) mn FROM request GROUP BY 1, 2, 3, 4
SELECT YEARWEEK(FROM_UNIXTIME(`timestamp`), 1) yw, COUNT(*) FROM request GROUP BY 1
SELECT TO_DAYS(FROM_UNIXTIME(`timestamp`)) td, FROM_DAYS(TO_DAYS(FROM_UNIXTIME(`timestamp`))) fd, COUNT(*) FROM request GROUP BY 1, 2
SELECT DATE_FORMAT(FROM_UNIXTIME(`timestamp`), '%a %b %e %Y %l:%i %p') f, COUNT(*) FROM request GROUP BY 1
SELECT UNIX_TIMESTAMP(DATE(FROM_UNIXTIME(`timestamp`))) * 1000 AS ms, COUNT(*) FROM request GROUP BY 1
SELECT CAST(`timestamp` AS CHAR) AS ts, CONVERT(status, CHAR(3)) AS st FROM request ORDER BY id LIMIT 3
SELECT NULLIF(status, 200) n, IFNULL(NULLIF(hostname, ''), '(none)') h FROM request ORDER BY id LIMIT 5
SELECT hostname, MIN(req_time), MAX(req_time), AVG(req_time), STDDEV(req_time), VARIANCE(req_time), BIT_OR(status), BIT_AND(status) FROM request GROUP BY hostname ORDER BY hostname
-- Window functions where MariaDB refuses them (4015, 4017, 4018, 4074), the first it meets; TIME_TO_SEC/UNIX_TIMESTAMP of a DOUBLE keep its fixed decimals and compare with a TIME as the integer they are
=SELECT 1 FROM request WHERE ROW_NUMBER() OVER () > 1
=SELECT status FROM request GROUP BY status HAVING SUM(ROW_NUMBER() OVER ()) > 1
=SELECT COUNT(*) FROM request a JOIN request b ON ROW_NUMBER() OVER () = 1
=SELECT 1 FROM request GROUP BY status, ROW_NUMBER() OVER (ORDER BY RANK() OVER ())
=SELECT RANK() OVER (PARTITION BY ROW_NUMBER() OVER ()) FROM request
=SELECT RANK() OVER (ORDER BY ROW_NUMBER() OVER ()) FROM request
=SELECT SUM(status) OVER (ORDER BY status) FROM request WINDOW w AS (ORDER BY RANK() OVER ())
=SELECT SUM(ROW_NUMBER() OVER ()) OVER () FROM request
=SELECT SUM(RANK() OVER ()) FROM request
=SELECT GROUP_CONCAT(ROW_NUMBER() OVER ()) FROM request
=SELECT RANK() OVER () FROM request WHERE ROW_NUMBER() OVER () > 1
=SELECT 1 FROM request GROUP BY ROW_NUMBER() OVER () ORDER BY RANK() OVER ()
=SELECT status FROM request GROUP BY status HAVING RANK() OVER () ORDER BY ROW_NUMBER() OVER (ROWS UNBOUNDED PRECEDING)
=SELECT NTILE(RANK() OVER ()) OVER (ROWS UNBOUNDED PRECEDING) FROM request
=SELECT LAG(RANK() OVER (ORDER BY status ROWS UNBOUNDED PRECEDING)) OVER () FROM request
=SELECT lead(status) OVER (PARTITION BY status ROWS UNBOUNDED PRECEDING) FROM request
=SELECT ROW_NUMBER() OVER () FROM request UNION SELECT Cume_Dist() OVER () FROM request
=SELECT 1 FROM request WHERE status IN (SELECT PERCENT_RANK() OVER (ROWS UNBOUNDED PRECEDING) FROM request)
=SELECT RANK() OVER w, ROW_NUMBER() OVER (ROWS UNBOUNDED PRECEDING) FROM request WINDOW w AS ()
SELECT DENSE_RANK() OVER w, NTILE(3) OVER (), ROW_NUMBER() OVER (ORDER BY (SELECT ROW_NUMBER() OVER ())) FROM request WINDOW w AS (ORDER BY id) ORDER BY id LIMIT 3
SELECT 1 FROM request WHERE (SELECT ROW_NUMBER() OVER ()) = 1 ORDER BY RANK() OVER (ORDER BY id), id LIMIT 2
SELECT TIME_TO_SEC(TRUNCATE(1e0, 3)), UNIX_TIMESTAMP(ROUND(20240305e0, 2)), TIME_TO_SEC(ROUND(1.23456e0, 4)), TIME_TO_SEC(TRUNCATE(req_time, 2)) FROM request ORDER BY id LIMIT 2
SELECT CAST(DATE '1970-01-01' AS TIME) NOT IN (TIME_TO_SEC(TIME '12:34:56'), 0.5), TIME '00:00:00' = TIME_TO_SEC(TIME '12:34:56'), TIME '00:01:00' = UNIX_TIMESTAMP(TIMESTAMP '1970-01-01 00:01:00') - 0
-- An unknown column named where MariaDB's resolution meets it first (its clause's word)
=SELECT nosuch FROM request WHERE id IN (SELECT nosuch2 FROM request)
=SELECT 1 FROM request a JOIN request b ON nosuch
=SELECT 1 FROM request GROUP BY id HAVING nosuch
=SELECT ROW_NUMBER() OVER (PARTITION BY nosuch) FROM request
=SELECT ROW_NUMBER() OVER (ORDER BY nosuch) FROM request
=SELECT 1 FROM request WHERE EXISTS (SELECT 1 FROM timer WHERE nosuch)
=SELECT request.nosuch FROM request
=SELECT 1 FROM request UNION SELECT 2 FROM request ORDER BY nosuch
=SELECT id FROM request ORDER BY (SELECT nosuch)
=SELECT 1 FROM request a JOIN request b USING (nosuch)
-- A temporal read by val_int (a cast to an integer, BIT_AND/BIT_OR/BIT_XOR) drops its fraction; text read as a TIME: one sign, an exponent makes no TIME, a date with more after it is a string
SELECT CAST(TIMESTAMP '2026-11-28 16:44:00.5' AS SIGNED), CAST(TIME '-00:00:01.5' AS SIGNED), CONVERT(TIMESTAMP '2026-11-28 16:44:59.9', SIGNED), CAST(TIME '00:00:00.5' AS UNSIGNED), TIMESTAMP '2026-11-28 16:44:00.5' | 0, TIMESTAMP '2026-11-28 16:44:00.5' >> 0
SELECT BIT_AND(TIME '-00:00:01.5'), BIT_XOR(CAST('00:00:00.7' AS TIME(1))), BIT_OR(TIMESTAMP '2026-11-28 16:44:59.9'), BIT_OR(FROM_UNIXTIME(1.5)) FROM request
SELECT '1e2' = TIME '00:00:00', '1.5e2' = TIME '00:00:00', '12:30:00e1' = TIME '00:00:00', '1e-' = TIME '00:00:01', '1E+2' = TIME '00:00:00', '+12:30' = TIME '12:30:00', '+ 1' = TIME '00:00:01', '-+1' = TIME '00:00:00'
SELECT CAST('1e2' AS TIME), CAST('+1' AS TIME), CAST('2024-03-05x' AS TIME), CAST('2024-03-05 x' AS TIME), '2024-03-05 x' = TIME '00:20:24', '1e2' IN (CAST(DATE '9999-12-31' AS TIME), NULL)
-- A double or string read as a DECIMAL by DIV: nine words of nine digits, past them the largest DECIMAL(65); a zero divisor first
SELECT 1.7976931348623157e308 DIV 0, 1e300 DIV 1e300, 1e300 DIV 1e64, -1e300 DIV 1e64, 1.5e80 DIV 1e70, 1 DIV 1e-100, '1e300' DIV 1e64, 1e60 DIV 1e66
=SELECT 1 DIV 1e-81
-- A zero minuend never overflows (MariaDB's check); NTILE's argument read by val_int, 4024 where it is not positive
SELECT 0 - -9223372036854775808, CAST(0 AS SIGNED) - CAST(-9223372036854775808 AS SIGNED), -9223372036854775808 - 0
=SELECT 1 - -9223372036854775808
SELECT NTILE(0.5) OVER (), NTILE(2.5) OVER (ORDER BY id) FROM request
=SELECT NTILE(0) OVER () FROM request
=SELECT NTILE(NULL) OVER (ORDER BY id) FROM request
-- A BIGINT UNSIGNED or a double past a BIGINT read as a TIME: past 838:59:59
SELECT HOUR(18446744073709551615), TIME_TO_SEC(18446744073709551615), HOUR(1.8e19), HOUR(-1.8e19), TIME_FORMAT(18446744073709551615, '%H'), DATE(18446744073709551615), CAST(1e300 AS TIME)
SELECT GREATEST(TIME '00:00:00', 18446744073709551615), CAST(18446744073709551615 AS TIME), GREATEST(DATE '2024-01-01', 18446744073709551615), CAST('18446744073709551615' AS TIME), TIME('2024-3-5xx')
-- A union's ORDER BY is resolved after its last SELECT; a subquery where its clause meets it
=SELECT 1 FROM request UNION SELECT RANK() OVER () FROM request ORDER BY NTILE(2) OVER (ROWS 1 PRECEDING)
=SELECT 1 FROM request WHERE 1 IN (SELECT RANK() OVER () FROM request) AND NTILE(2) OVER () = 1
-- A BIGINT rounded to tens or more is exact, a DECIMAL past 64 bits; DIV's length is its dividend's decimal_int_part
SELECT ROUND(9223372036854775807, -1), ROUND(-9223372036854775807, -19), TRUNCATE(9223372036854775807, -1), ROUND(9223372036854775807, -1) + 1, ROUND(9223372036854775807, -20)
SELECT ROUND(9223372036854775807, -1) FROM request GROUP BY 1
SELECT timestamp DIV 60 * 60, -1e300 DIV 1e64, '1e300' DIV 1e64, -7 DIV 2 * 60, id DIV 7 * 7 FROM request
-- INTERSECT binds tighter than UNION and EXCEPT; INTERSECT and EXCEPT alone; GROUP_CONCAT's LIMIT; LEAD/LAG of three arguments a syntax error
SELECT hostname FROM request INTERSECT SELECT hostname FROM request WHERE status = 200 ORDER BY 1
SELECT script_name FROM request EXCEPT SELECT script_name FROM request WHERE status = 200 ORDER BY 1
SELECT 1 UNION SELECT 2 INTERSECT SELECT 2 ORDER BY 1
SELECT 'a' UNION SELECT 'A' EXCEPT SELECT 'b'
SELECT status FROM request UNION ALL SELECT status FROM request EXCEPT SELECT 404 ORDER BY 1
SELECT hostname FROM request WHERE status = 200 UNION SELECT hostname FROM request EXCEPT SELECT server_name FROM request INTERSECT SELECT hostname FROM request ORDER BY 1
SELECT hostname, GROUP_CONCAT(DISTINCT script_name ORDER BY script_name LIMIT 2) FROM request GROUP BY hostname ORDER BY 1
SELECT GROUP_CONCAT(status ORDER BY id LIMIT 0), GROUP_CONCAT(status ORDER BY status DESC, id LIMIT 3) FROM request
=SELECT GROUP_CONCAT(status LIMIT 1.5) FROM request
=SELECT GROUP_CONCAT(status LIMIT -1) FROM request
=SELECT id, LEAD(req_time, 2, 0) OVER (ORDER BY id) FROM request ORDER BY id LIMIT 5
-- FROM_UNIXTIME declares its argument's fraction digits, a DOUBLE's or a string's not fixed
SELECT FROM_UNIXTIME(1709633472.5), FROM_UNIXTIME(1709633472.123456789), FROM_UNIXTIME(1.7e9), FROM_UNIXTIME('1709633472.25'), FROM_UNIXTIME(NULL)
SELECT FROM_UNIXTIME(req_time), FROM_UNIXTIME(timestamp + 0.5) FROM request ORDER BY id LIMIT 2
-- A select with a window function sends what it computes per row from its temporary table's fields
SELECT id, ROUND(req_time, 3), status + 1, status / 3, UPPER(hostname), IF(status > 300, 'a', 'b'), HOUR(FROM_UNIXTIME(timestamp)), ROW_NUMBER() OVER (ORDER BY id) + 1, NULL, 'x', 1 + 1 FROM request ORDER BY id LIMIT 3
SELECT id, REPEAT(hostname, 200), SUM(status) OVER (), MAX(hostname) OVER (), RANK() OVER (ORDER BY id) FROM request ORDER BY id LIMIT 2
-- SUBSTRING's forms declared as the function's; an unsigned operand of SUBSTRING read by its bits
SELECT SUBSTRING('hello world', 7), SUBSTRING('hello', -3, 2), SUBSTRING('hello' FROM 2 FOR 3), SUBSTR(~1, 5), SUBSTRING(~1 FROM 3 FOR 2), MID(~1, 5)
SELECT SUBSTRING(script_name FROM 2 FOR 3), SUBSTRING(script_name, -4), TRIM(BOTH '/' FROM script_name), POSITION('.' IN script_name) FROM request ORDER BY id LIMIT 3
-- A column NULL in every operand of a UNION, INTERSECT or EXCEPT is the union table's binary CHAR(0)
SELECT NULL UNION SELECT NULL
SELECT NULL UNION ALL SELECT NULL
SELECT NULL INTERSECT SELECT NULL
