/* Preset files: the shipped ones hold the exact values; every kind of
 * malformed file is refused with a reason; writing and reading round-trip;
 * ids made from hostile names stay inside the user's folder; saving and
 * deleting follow the rules (no shipped id, no silent overwrite).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "preset.h"

static void
test_shipped (void)
{
  static const struct
  {
    const gchar *id;
    gint w, h;
    gdouble first, centre, divisor, offset, sum;
  } want[] = {
    { "identity", 3, 3, 0, 1, 1, 0, 1 },
    { "box-3", 3, 3, 1, 1, 9, 0, 9 },
    { "box-5", 5, 5, 1, 1, 25, 0, 25 },
    { "gaussian-3", 3, 3, 1, 4, 16, 0, 16 },
    { "gaussian-5", 5, 5, 1, 36, 256, 0, 256 },
    { "gaussian-7", 7, 7, 1, 400, 4096, 0, 4096 },
    { "sharpen", 3, 3, 0, 5, 1, 0, 1 },
    { "motion-blur-h-9", 9, 1, 1, 1, 9, 0, 9 },
    { "motion-blur-v-9", 1, 9, 1, 1, 9, 0, 9 },
    { "edge-laplacian", 3, 3, 0, -4, 1, 0.5, 0 },
    { "sobel-x", 3, 3, -1, 0, 4, 0.5, 0 },
    { "sobel-y", 3, 3, -1, 0, 4, 0.5, 0 },
    { "prewitt-x", 3, 3, -1, 0, 3, 0.5, 0 },
    { "prewitt-y", 3, 3, -1, 0, 3, 0.5, 0 },
    { "emboss", 3, 3, -2, 1, 1, 0, 1 },
  };
  const gchar *dir = g_getenv ("PRESET_DIR");
  GString *warnings = g_string_new (NULL);
  GList *all = cc_presets_list (dir, NULL, warnings);

  g_assert_cmpstr (warnings->str, ==, "");
  g_assert_cmpuint (g_list_length (all), ==, G_N_ELEMENTS (want));
  for (gsize i = 0; i < G_N_ELEMENTS (want); i++)
    {
      GError *error = NULL;
      CcPreset *p = cc_presets_find (dir, NULL, want[i].id, &error);
      gdouble sum = 0;

      g_assert_no_error (error);
      g_assert_true (p->shipped);
      g_assert_cmpint (p->width, ==, want[i].w);
      g_assert_cmpint (p->height, ==, want[i].h);
      g_assert_cmpfloat (p->matrix[0], ==, want[i].first);
      g_assert_cmpfloat (p->matrix[(p->height / 2) * p->width + p->width / 2], ==, want[i].centre);
      g_assert_cmpfloat (p->divisor, ==, want[i].divisor);
      g_assert_cmpfloat (p->offset, ==, want[i].offset);
      for (gint k = 0; k < p->width * p->height; k++)
        sum += p->matrix[k];
      g_assert_cmpfloat (sum, ==, want[i].sum);
      cc_preset_free (p);
    }
  cc_presets_free (all);
  g_string_free (warnings, TRUE);
}

static void
test_malformed (void)
{
  static const struct { const gchar *text, *reason; } bad[] = {
    { "", "no [Preset]" },
    { "[Other]\nName=x\n", "no [Preset]" },
    { "not a key file", "" },
    { "[Preset]\nWidth=3\nHeight=1\nRow1=1,1,1\n", "Name" },
    { "[Preset]\nName=   \nWidth=3\nHeight=1\nRow1=1,1,1\n", "Name" },
    { "[Preset]\nName=x\nHeight=1\nRow1=1\n", "Width" },
    { "[Preset]\nName=x\nWidth=2\nHeight=1\nRow1=1,1\n", "Width" },
    { "[Preset]\nName=x\nWidth=1025\nHeight=1\nRow1=1\n", "Width" },
    { "[Preset]\nName=x\nWidth=-3\nHeight=1\nRow1=1\n", "Width" },
    { "[Preset]\nName=x\nWidth=3.5\nHeight=1\nRow1=1\n", "Width" },
    { "[Preset]\nName=x\nWidth=3\nHeight=3\nRow1=1,1,1\nRow2=1,1,1\n", "Row3" },
    { "[Preset]\nName=x\nWidth=3\nHeight=1\nRow1=1,1\n", "Row1" },
    { "[Preset]\nName=x\nWidth=3\nHeight=1\nRow1=1,1,1,1\n", "Row1" },
    { "[Preset]\nName=x\nWidth=3\nHeight=1\nRow1=1,x,1\n", "Row1" },
    { "[Preset]\nName=x\nWidth=3\nHeight=1\nRow1=1,nan,1\n", "Row1" },
    { "[Preset]\nName=x\nWidth=3\nHeight=1\nRow1=1,1e999,1\n", "Row1" },
    { "[Preset]\nName=x\nWidth=3\nHeight=1\nRow1=1,,1\n", "Row1" },
    { "[Preset]\nName=x\nWidth=1\nHeight=1\nRow1=1\nRow2=1\n", "more rows" },
    { "[Preset]\nName=x\nWidth=1\nHeight=1\nRow1=1\nDivisor=0\n", "Divisor" },
    { "[Preset]\nName=x\nWidth=1\nHeight=1\nRow1=1\nDivisor=inf\n", "Divisor" },
    { "[Preset]\nName=x\nWidth=1\nHeight=1\nRow1=1\nOffset=zero\n", "Offset" },
    { "[Preset]\nName=\xff\xfe\nWidth=1\nHeight=1\nRow1=1\n", "UTF-8" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GError *error = NULL;
      CcPreset *p = cc_preset_parse ("bad", bad[i].text, strlen (bad[i].text), &error);

      if (p || !error || !strstr (error->message, bad[i].reason))
        g_error ("malformed preset %" G_GSIZE_FORMAT " (%s) gave %s", i, bad[i].text,
                 error ? error->message : "a preset");
      g_clear_error (&error);
    }
  /* A truncated file, and one too large to be a preset, from disk. */
  {
    gchar *dir = g_dir_make_tmp ("presets-XXXXXX", NULL);
    gchar *path = g_build_filename (dir, "big.preset", NULL);
    gchar *data = g_malloc0 (5 * 1024 * 1024);
    GError *error = NULL;

    g_file_set_contents (path, data, 5 * 1024 * 1024, NULL);
    g_assert_null (cc_preset_load (path, &error));
    g_assert_nonnull (strstr (error->message, "too large"));
    g_clear_error (&error);
    g_unlink (path);
    g_rmdir (dir);
    g_free (data);
    g_free (path);
    g_free (dir);
  }
}

static void
test_round_trip (void)
{
  gdouble m[15];
  CcPreset *p, *back;
  gchar *data;
  gsize length;
  GError *error = NULL;

  for (gint i = 0; i < 15; i++)
    m[i] = (i - 7) / 3.0 + (i % 2 ? 1e-9 : 0);
  p = cc_preset_new ("my-mask", "My mask, ü = 1/3", 5, 3, m, -7.25, 0.125);
  p->description = g_strdup ("Line one.\nLine two; with = signs.");
  data = cc_preset_to_data (p, &length);
  back = cc_preset_parse ("my-mask", data, length, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (back->name, ==, p->name);
  g_assert_cmpstr (back->description, ==, p->description);
  g_assert_cmpint (back->width, ==, 5);
  g_assert_cmpint (back->height, ==, 3);
  g_assert_cmpmem (back->matrix, sizeof m, m, sizeof m);
  g_assert_cmpfloat (back->divisor, ==, -7.25);
  g_assert_cmpfloat (back->offset, ==, 0.125);
  cc_preset_free (back);
  cc_preset_free (p);
  g_free (data);
}

static void
test_ids (void)
{
  static const struct { const gchar *name, *id; } cases[] = {
    { "My Blur", "my-blur" },
    { "../x", "x" },
    { "/etc/x", "etc-x" },
    { "..", NULL },
    { "", NULL },
    { "   ", NULL },
    { "Ünïcödé ×", "n-c-d" },
    { "日本語", NULL },
    { "a\\b:c*d?e", "a-b-c-d-e" },
    { "--Edge--", "edge" },
  };
  gchar *long_name = g_strnfill (300, 'a');
  gchar *id;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      id = cc_preset_id_from_name (cases[i].name);
      g_assert_cmpstr (id, ==, cases[i].id);
      if (id)
        g_assert_true (cc_preset_id_is_valid (id));
      g_free (id);
    }
  id = cc_preset_id_from_name (long_name);
  g_assert_cmpuint (strlen (id), ==, CC_PRESET_ID_MAX);
  g_assert_true (cc_preset_id_is_valid (id));
  g_free (id);
  g_free (long_name);
  g_assert_false (cc_preset_id_is_valid ("../x"));
  g_assert_false (cc_preset_id_is_valid ("A"));
  g_assert_false (cc_preset_id_is_valid (""));
  g_assert_false (cc_preset_id_is_valid ("a/b"));
}

static void
test_save_delete (void)
{
  const gchar *shipped = g_getenv ("PRESET_DIR");
  gchar *tmp = g_dir_make_tmp ("user-presets-XXXXXX", NULL);
  gchar *user = g_build_filename (tmp, "nested", "presets", NULL);
  gdouble m[3] = { 1, 2, 1 };
  CcPreset *p = cc_preset_new ("soft", "Soft", 3, 1, m, 4, 0);
  GError *error = NULL;
  GString *warnings = g_string_new (NULL);
  GList *all;
  gchar *path;

  g_assert_true (cc_preset_save (p, shipped, user, FALSE, &error));
  g_assert_no_error (error);
  /* Overwriting asks first: refused unless asked for. */
  g_assert_false (cc_preset_save (p, shipped, user, FALSE, &error));
  g_assert_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_true (cc_preset_save (p, shipped, user, TRUE, &error));
  /* A shipped id cannot be taken. */
  g_free (p->id);
  p->id = g_strdup ("box-3");
  g_assert_false (cc_preset_save (p, shipped, user, TRUE, &error));
  g_assert_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_READ_ONLY);
  g_clear_error (&error);
  /* Hostile ids never become paths. */
  g_free (p->id);
  p->id = g_strdup ("../escape");
  g_assert_false (cc_preset_save (p, shipped, user, TRUE, &error));
  g_assert_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_BAD_ID);
  g_clear_error (&error);
  path = g_build_filename (tmp, "nested", "escape.preset", NULL);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_free (path);

  /* Listed after the shipped ones, not shipped; a broken file is skipped
   * with a message. */
  path = g_build_filename (user, "broken.preset", NULL);
  g_file_set_contents (path, "[Preset]\nName=b\n", -1, NULL);
  g_free (path);
  all = cc_presets_list (shipped, user, warnings);
  g_assert_cmpuint (g_list_length (all), ==, 16);
  g_assert_cmpstr (((CcPreset *) g_list_last (all)->data)->id, ==, "soft");
  g_assert_false (((CcPreset *) g_list_last (all)->data)->shipped);
  g_assert_nonnull (strstr (warnings->str, "broken.preset"));
  cc_presets_free (all);

  /* Rename is save under the new id, then delete the old. */
  g_free (p->id);
  p->id = g_strdup ("softer");
  g_assert_true (cc_preset_save (p, shipped, user, FALSE, &error));
  g_assert_true (cc_preset_delete (user, "soft", &error));
  g_assert_no_error (error);
  g_assert_false (cc_preset_delete (user, "soft", &error));
  g_clear_error (&error);
  g_assert_false (cc_preset_delete (user, "../nested/presets/softer", &error));
  g_assert_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_BAD_ID);
  g_clear_error (&error);
  g_assert_true (cc_preset_delete (user, "softer", &error));
  g_assert_true (cc_preset_delete (user, "broken", &error));

  g_rmdir (user);
  path = g_build_filename (tmp, "nested", NULL);
  g_rmdir (path);
  g_free (path);
  g_rmdir (tmp);
  g_string_free (warnings, TRUE);
  cc_preset_free (p);
  g_free (user);
  g_free (tmp);
}

/* Where the user's presets live: GIMP3_DIRECTORY when set, else (outside
 * GIMP, as the tool runs) the newest GIMP 3 profile, 3.10 after 3.2. */
static gchar *config;   /* XDG_CONFIG_HOME, set before GLib first reads it */

static void
test_user_dir (void)
{
  gchar *shipped, *user, *want;
  const char *profiles[] = { "3.0", "3.2", "3.10", "2.10", "3.x" };

  g_assert_cmpstr (g_get_user_config_dir (), ==, config);
  g_unsetenv ("GIMP3_DIRECTORY");
  for (gsize i = 0; i < G_N_ELEMENTS (profiles); i++)
    {
      gchar *d = g_build_filename (config, "GIMP", profiles[i], NULL);

      g_assert_cmpint (g_mkdir_with_parents (d, 0700), ==, 0);
      g_free (d);
    }
  want = g_build_filename (config, "GIMP", "3.10", "plug-in-x", "presets", NULL);
  cc_presets_dirs ("/nonexistent", "plug-in-x", &shipped, &user);
  g_assert_cmpstr (user, ==, want);
  g_free (shipped);
  g_free (user);
  g_free (want);

  g_setenv ("GIMP3_DIRECTORY", "/somewhere/GIMP/3.2", TRUE);
  cc_presets_dirs ("/nonexistent", "plug-in-x", &shipped, &user);
  g_assert_cmpstr (user, ==, "/somewhere/GIMP/3.2/plug-in-x/presets");
  g_free (shipped);
  g_free (user);
  g_unsetenv ("GIMP3_DIRECTORY");
  for (gsize i = 0; i < G_N_ELEMENTS (profiles); i++)
    {
      gchar *d = g_build_filename (config, "GIMP", profiles[i], NULL);

      g_rmdir (d);
      g_free (d);
    }
  want = g_build_filename (config, "GIMP", NULL);
  g_rmdir (want);
  g_free (want);
  g_rmdir (config);
}

int
main (int argc, char **argv)
{
  config = g_dir_make_tmp ("cc-profiles-XXXXXX", NULL);
  g_assert_nonnull (config);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/presets/shipped", test_shipped);
  g_test_add_func ("/presets/malformed", test_malformed);
  g_test_add_func ("/presets/round-trip", test_round_trip);
  g_test_add_func ("/presets/ids", test_ids);
  g_test_add_func ("/presets/save-delete", test_save_delete);
  g_test_add_func ("/presets/user-dir", test_user_dir);
  return g_test_run ();
}
