/* Preset files, one mask each, read with GKeyFile:
 *   [Preset]  Name=Gaussian 3x3  Description=... (optional)
 *   Width=3  Height=3  Row1=1,2,1  Row2=2,4,2  Row3=1,2,1
 *   Divisor=16 (optional, default 1)  Offset=0 (optional, default 0)
 * one key a line.  The shipped presets, then the user's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#define _GNU_SOURCE 1   /* RTLD_DEFAULT */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "preset.h"

#define GROUP "Preset"

G_DEFINE_QUARK (cc-preset-error-quark, cc_preset_error)

CcPreset *
cc_preset_new (const gchar *id, const gchar *name, gint width, gint height,
               const gdouble *matrix, gdouble divisor, gdouble offset)
{
  CcPreset *p = g_new0 (CcPreset, 1);

  p->id      = g_strdup (id);
  p->name    = g_strdup (name);
  p->width   = width;
  p->height  = height;
  p->matrix  = g_memdup2 (matrix, sizeof (gdouble) * width * height);
  p->divisor = divisor;
  p->offset  = offset;
  return p;
}

CcPreset *
cc_preset_copy (const CcPreset *preset)
{
  CcPreset *p = cc_preset_new (preset->id, preset->name, preset->width, preset->height,
                               preset->matrix, preset->divisor, preset->offset);

  p->description = g_strdup (preset->description);
  p->shipped = preset->shipped;
  return p;
}

void
cc_preset_free (CcPreset *preset)
{
  if (!preset)
    return;
  g_free (preset->id);
  g_free (preset->name);
  g_free (preset->description);
  g_free (preset->matrix);
  g_free (preset);
}

gboolean
cc_preset_id_is_valid (const gchar *id)
{
  if (!id || !*id || strlen (id) > CC_PRESET_ID_MAX)
    return FALSE;
  for (const gchar *c = id; *c; c++)
    if (!g_ascii_islower (*c) && !g_ascii_isdigit (*c) && *c != '-')
      return FALSE;
  return TRUE;
}

gchar *
cc_preset_id_from_name (const gchar *name)
{
  GString *id = g_string_new (NULL);
  gboolean dash = FALSE;

  for (const gchar *c = name ? name : ""; *c && id->len < CC_PRESET_ID_MAX; c++)
    {
      if (g_ascii_isalnum (*c))
        {
          if (dash && id->len > 0)
            g_string_append_c (id, '-');
          g_string_append_c (id, g_ascii_tolower (*c));
          dash = FALSE;
        }
      else
        dash = TRUE;   /* spaces, punctuation, '/', '.', non-ASCII bytes */
    }
  while (id->len > CC_PRESET_ID_MAX || (id->len > 0 && id->str[id->len - 1] == '-'))
    g_string_truncate (id, id->len - 1);
  if (id->len == 0)
    {
      g_string_free (id, TRUE);
      return NULL;
    }
  return g_string_free (id, FALSE);
}

static gboolean
parse_number (const gchar *text, gdouble *value)
{
  gchar *end;

  text += strspn (text, " \t");
  errno = 0;
  *value = g_ascii_strtod (text, &end);
  end += strspn (end, " \t");
  return end != text && *end == '\0' && errno == 0 && isfinite (*value);
}

static gboolean
malformed (GError **error, const gchar *id, const gchar *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
malformed (GError **error, const gchar *id, const gchar *format, ...)
{
  va_list args;
  gchar *why;

  va_start (args, format);
  why = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_MALFORMED,
               "preset '%s': %s", id, why);
  g_free (why);
  return FALSE;
}

/* An optional number key: absent gives 'fallback'. */
static gboolean
get_number (GKeyFile *kf, const gchar *id, const gchar *key, gdouble fallback,
            gdouble *value, GError **error)
{
  gchar *text = g_key_file_get_value (kf, GROUP, key, NULL);
  gboolean ok = TRUE;

  *value = fallback;
  if (text)
    {
      ok = parse_number (text, value) ||
           malformed (error, id, "%s '%s' is not a finite number", key, text);
      g_free (text);
    }
  return ok;
}

static gboolean
get_size (GKeyFile *kf, const gchar *id, const gchar *key, gint *value, GError **error)
{
  gdouble v;
  gchar *text = g_key_file_get_value (kf, GROUP, key, NULL);

  if (!text)
    return malformed (error, id, "%s is missing", key);
  if (!parse_number (text, &v) || v != floor (v) || v < 1 || v > CC_PRESET_MAX_SIZE ||
      !((gint) v & 1))
    {
      malformed (error, id, "%s '%s' must be an odd whole number, 1 to %d", key, text,
                 CC_PRESET_MAX_SIZE);
      g_free (text);
      return FALSE;
    }
  g_free (text);
  *value = (gint) v;
  return TRUE;
}

/* The file as a key file with the preset's group, for a valid id. */
static gboolean
load_key_file (GKeyFile *kf, const gchar *id, const gchar *data, gsize length,
               GError **error)
{
  GError *kf_error = NULL;

  if (!cc_preset_id_is_valid (id))
    {
      g_set_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_BAD_ID,
                   "'%s' is not a preset id: use a-z, 0-9 and '-'", id ? id : "");
      return FALSE;
    }
  if (!g_utf8_validate (data, length, NULL))
    return malformed (error, id, "the file is not UTF-8 text");
  if (!g_key_file_load_from_data (kf, data, length, G_KEY_FILE_NONE, &kf_error))
    {
      malformed (error, id, "%s", kf_error->message);
      g_error_free (kf_error);
      return FALSE;
    }
  if (!g_key_file_has_group (kf, GROUP))
    return malformed (error, id, "no [" GROUP "] group");
  return TRUE;
}

/* Name, Description, the size, Divisor and Offset, into p. */
static gboolean
get_header (GKeyFile *kf, CcPreset *p, GError **error)
{
  p->name = g_key_file_get_string (kf, GROUP, "Name", NULL);
  if (!p->name || !*g_strstrip (p->name))
    return malformed (error, p->id, "Name is missing or empty");
  p->description = g_key_file_get_string (kf, GROUP, "Description", NULL);
  if (!get_size (kf, p->id, "Width", &p->width, error) ||
      !get_size (kf, p->id, "Height", &p->height, error) ||
      !get_number (kf, p->id, "Divisor", 1.0, &p->divisor, error) ||
      !get_number (kf, p->id, "Offset", 0.0, &p->offset, error))
    return FALSE;
  if (p->divisor == 0.0)
    return malformed (error, p->id, "Divisor must not be 0");
  return TRUE;
}

/* Row j + 1's values, Width of them, into the matrix's row j. */
static gboolean
get_row (GKeyFile *kf, CcPreset *p, gint j, GError **error)
{
  gchar key[16], *row, **cells;
  gint n;

  g_snprintf (key, sizeof key, "Row%d", j + 1);
  row = g_key_file_get_value (kf, GROUP, key, NULL);
  if (!row)
    return malformed (error, p->id, "%s is missing (Height is %d)", key, p->height);
  cells = g_strsplit (row, ",", -1);
  n = g_strv_length (cells);
  for (gint i = 0; i < n && i < p->width; i++)
    if (!parse_number (cells[i], &p->matrix[j * p->width + i]))
      {
        malformed (error, p->id, "%s: '%s' is not a finite number", key, cells[i]);
        n = -1;
        break;
      }
  if (n >= 0 && n != p->width)
    malformed (error, p->id, "%s has %d values, Width is %d", key, n, p->width);
  g_strfreev (cells);
  g_free (row);
  return n == p->width;
}

/* The matrix, Height rows and no more. */
static gboolean
get_matrix (GKeyFile *kf, CcPreset *p, GError **error)
{
  gchar key[16];

  p->matrix = g_new (gdouble, p->width * p->height);
  for (gint j = 0; j < p->height; j++)
    if (!get_row (kf, p, j, error))
      return FALSE;
  g_snprintf (key, sizeof key, "Row%d", p->height + 1);
  if (g_key_file_has_key (kf, GROUP, key, NULL))
    return malformed (error, p->id, "more rows than Height (%d)", p->height);
  return TRUE;
}

CcPreset *
cc_preset_parse (const gchar *id, const gchar *data, gsize length, GError **error)
{
  GKeyFile *kf = g_key_file_new ();
  CcPreset *p = g_new0 (CcPreset, 1);

  p->id = g_strdup (id);
  if (!load_key_file (kf, id, data, length, error) || !get_header (kf, p, error) ||
      !get_matrix (kf, p, error))
    {
      g_key_file_free (kf);
      cc_preset_free (p);
      return NULL;
    }
  g_key_file_free (kf);
  return p;
}

/* The shortest text that reads back as the same double. */
static void
append_number (GString *s, gdouble v)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (buf, sizeof buf, "%.15g", v);
  if (g_ascii_strtod (buf, NULL) != v)
    g_ascii_formatd (buf, sizeof buf, "%.17g", v);
  g_string_append (s, buf);
}

gchar *
cc_preset_to_data (const CcPreset *p, gsize *length)
{
  GKeyFile *kf = g_key_file_new ();
  GString *s = g_string_new (NULL);
  gchar *data;

  g_key_file_set_string (kf, GROUP, "Name", p->name);
  if (p->description)
    g_key_file_set_string (kf, GROUP, "Description", p->description);
  g_key_file_set_integer (kf, GROUP, "Width", p->width);
  g_key_file_set_integer (kf, GROUP, "Height", p->height);
  for (gint j = 0; j < p->height; j++)
    {
      gchar key[16];

      g_string_truncate (s, 0);
      for (gint i = 0; i < p->width; i++)
        {
          if (i)
            g_string_append_c (s, ',');
          append_number (s, p->matrix[j * p->width + i]);
        }
      g_snprintf (key, sizeof key, "Row%d", j + 1);
      g_key_file_set_value (kf, GROUP, key, s->str);
    }
  g_string_truncate (s, 0);
  append_number (s, p->divisor);
  g_key_file_set_value (kf, GROUP, "Divisor", s->str);
  g_string_truncate (s, 0);
  append_number (s, p->offset);
  g_key_file_set_value (kf, GROUP, "Offset", s->str);
  g_string_free (s, TRUE);

  data = g_key_file_to_data (kf, length, NULL);
  g_key_file_free (kf);
  return data;
}

/* Preset files are small; anything larger is not one. */
#define MAX_FILE (4 * 1024 * 1024)

CcPreset *
cc_preset_load (const gchar *path, GError **error)
{
  gchar *base = g_path_get_basename (path);
  gchar *data = NULL;
  gsize length;
  CcPreset *p = NULL;
  GStatBuf st;

  if (g_str_has_suffix (base, CC_PRESET_SUFFIX))
    base[strlen (base) - strlen (CC_PRESET_SUFFIX)] = '\0';
  if (g_stat (path, &st) == 0 && st.st_size > MAX_FILE)
    g_set_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_MALFORMED,
                 "preset '%s': the file is too large to be a preset", base);
  else if (g_file_get_contents (path, &data, &length, error))
    p = cc_preset_parse (base, data, length, error);
  g_free (data);
  g_free (base);
  return p;
}

static gint
by_name (gconstpointer a, gconstpointer b)
{
  const CcPreset *x = a, *y = b;
  gint c = g_utf8_collate (x->name, y->name);
  return c ? c : strcmp (x->id, y->id);
}

/* Every preset of one folder, sorted by name. */
static GList *
list_dir (const gchar *dir, gboolean shipped, GHashTable *taken, GString *warnings)
{
  GDir *d = dir ? g_dir_open (dir, 0, NULL) : NULL;
  const gchar *file;
  GList *list = NULL;

  if (!d)
    return NULL;
  while ((file = g_dir_read_name (d)))
    {
      gchar *path, *id;
      CcPreset *p;
      GError *error = NULL;

      if (!g_str_has_suffix (file, CC_PRESET_SUFFIX))
        continue;
      path = g_build_filename (dir, file, NULL);
      id = g_strndup (file, strlen (file) - strlen (CC_PRESET_SUFFIX));
      if (g_hash_table_contains (taken, id))
        {
          if (warnings)
            g_string_append_printf (warnings,
                                    "Skipped %s: '%s' is the id of a shipped preset.\n",
                                    path, id);
        }
      else if (!(p = cc_preset_load (path, &error)))
        {
          if (warnings)
            g_string_append_printf (warnings, "Skipped %s: %s\n", path, error->message);
          g_clear_error (&error);
        }
      else
        {
          p->shipped = shipped;
          list = g_list_prepend (list, p);
          g_hash_table_add (taken, g_strdup (id));
        }
      g_free (id);
      g_free (path);
    }
  g_dir_close (d);
  return g_list_sort (list, by_name);
}

GList *
cc_presets_list (const gchar *shipped_dir, const gchar *user_dir, GString *warnings)
{
  GHashTable *taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GList *shipped = list_dir (shipped_dir, TRUE, taken, warnings);
  GList *user = list_dir (user_dir, FALSE, taken, warnings);

  g_hash_table_destroy (taken);
  return g_list_concat (shipped, user);
}

void
cc_presets_free (GList *presets)
{
  g_list_free_full (presets, (GDestroyNotify) cc_preset_free);
}

CcPreset *
cc_presets_find (const gchar *shipped_dir, const gchar *user_dir, const gchar *id,
                 GError **error)
{
  const gchar *dirs[2] = { shipped_dir, user_dir };

  if (!cc_preset_id_is_valid (id))
    {
      g_set_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_BAD_ID,
                   "'%s' is not a preset id: use a-z, 0-9 and '-'", id ? id : "");
      return NULL;
    }
  for (gint i = 0; i < 2; i++)
    {
      gchar *file = g_strconcat (id, CC_PRESET_SUFFIX, NULL);
      gchar *path = dirs[i] ? g_build_filename (dirs[i], file, NULL) : NULL;
      CcPreset *p = NULL;

      if (path && g_file_test (path, G_FILE_TEST_IS_REGULAR))
        {
          p = cc_preset_load (path, error);
          if (p)
            p->shipped = i == 0;
        }
      g_free (file);
      if (path && (p || (error && *error)))
        {
          g_free (path);
          return p;
        }
      g_free (path);
    }
  g_set_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_NOT_FOUND,
               "unknown preset '%s': not among the shipped ones (%s) or yours (%s)", id,
               shipped_dir ? shipped_dir : "none", user_dir ? user_dir : "none");
  return NULL;
}

static gchar *
preset_path (const gchar *dir, const gchar *id)
{
  gchar *file = g_strconcat (id, CC_PRESET_SUFFIX, NULL);
  gchar *path = g_build_filename (dir, file, NULL);

  g_free (file);
  return path;
}

gboolean
cc_preset_save (const CcPreset *preset, const gchar *shipped_dir, const gchar *user_dir,
                gboolean overwrite, GError **error)
{
  gchar *path, *shipped, *data;
  gsize length;
  gboolean ok;

  /* The id is checked before it becomes part of a path: no '/', no "..". */
  if (!cc_preset_id_is_valid (preset->id))
    {
      g_set_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_BAD_ID,
                   "'%s' is not a preset id: use a-z, 0-9 and '-'",
                   preset->id ? preset->id : "");
      return FALSE;
    }
  shipped = shipped_dir ? preset_path (shipped_dir, preset->id) : NULL;
  if (shipped && g_file_test (shipped, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_READ_ONLY,
                   "'%s' is a shipped preset; choose another name", preset->id);
      g_free (shipped);
      return FALSE;
    }
  g_free (shipped);
  if (g_mkdir_with_parents (user_dir, 0755) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                   "cannot create %s: %s", user_dir, g_strerror (errno));
      return FALSE;
    }
  path = preset_path (user_dir, preset->id);
  if (!overwrite && g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_EXISTS,
                   "a preset '%s' exists already", preset->id);
      g_free (path);
      return FALSE;
    }
  data = cc_preset_to_data (preset, &length);
  ok = g_file_set_contents (path, data, length, error);
  g_free (data);
  g_free (path);
  return ok;
}

gboolean
cc_preset_delete (const gchar *user_dir, const gchar *id, GError **error)
{
  gchar *path;
  gboolean ok;

  if (!cc_preset_id_is_valid (id))
    {
      g_set_error (error, CC_PRESET_ERROR, CC_PRESET_ERROR_BAD_ID,
                   "'%s' is not a preset id", id ? id : "");
      return FALSE;
    }
  path = preset_path (user_dir, id);
  ok = g_unlink (path) == 0;
  if (!ok)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                 "cannot delete preset '%s': %s", id, g_strerror (errno));
  g_free (path);
  return ok;
}

/* Profiles are named for GIMP's major.minor (GIMP/3.0, GIMP/3.2). */
static gint
by_version (gconstpointer a, gconstpointer b)
{
  const gchar *x = *(const gchar *const *) a, *y = *(const gchar *const *) b;
  gint major = atoi (x) - atoi (y);

  return major ? major : atoi (strchr (x, '.') + 1) - atoi (strchr (y, '.') + 1);
}

/* GIMP's profile: where the running GIMP keeps it (libgimpbase's
 * gimp_directory, in the plug-in and in GIMP's own process, where the
 * operation runs); elsewhere (the tool, the gegl tool) the newest GIMP 3
 * profile there is. */
static gchar *
gimp_profile (void)
{
  const gchar *env = g_getenv ("GIMP3_DIRECTORY");
  const gchar *(*running) (void) = (const gchar *(*) (void)) dlsym (RTLD_DEFAULT, "gimp_directory");
  gchar *config, *profile;
  GPtrArray *found;
  const gchar *name;
  GDir *dir;

  if (env && *env)
    return g_strdup (env);
  if (running)
    return g_strdup (running ());
  config = g_build_filename (g_get_user_config_dir (), "GIMP", NULL);
  found = g_ptr_array_new_with_free_func (g_free);
  if ((dir = g_dir_open (config, 0, NULL)))
    {
      while ((name = g_dir_read_name (dir)))
        if (g_regex_match_simple ("^3\\.[0-9]+$", name, 0, 0))
          g_ptr_array_add (found, g_strdup (name));
      g_dir_close (dir);
    }
  g_ptr_array_sort (found, by_version);
  profile = g_build_filename (config, found->len ? (const gchar *) found->pdata[found->len - 1]
                                                 : "3.0", NULL);
  g_ptr_array_free (found, TRUE);
  g_free (config);
  return profile;
}

/* "presets" beside the module or program that holds this code, in the
 * folder where its file really is (the release links the plug-in and the
 * tool there), or in the release's folder beside its GEGL module; NULL
 * where there is none.  A program's own path is /proc/self/exe's (dladdr
 * gives its argv[0], which may be a bare name). */
static gchar *
presets_beside (void)
{
  Dl_info self;
  char *objects[2] = { NULL, realpath ("/proc/self/exe", NULL) };
  gchar *found = NULL;

  if (dladdr ((void *) presets_beside, &self) && self.dli_fname && strchr (self.dli_fname, '/'))
    objects[0] = realpath (self.dli_fname, NULL);
  for (int o = 0; o < 2; o++)
    {
      gchar *folder = objects[o] ? g_path_get_dirname (objects[o]) : NULL;

      for (int i = 0; folder && i < 2 && !found; i++)
        {
          found = g_build_filename (folder, i ? "gimp-cuda-convolve" : "", "presets", NULL);
          if (!g_file_test (found, G_FILE_TEST_IS_DIR))
            g_clear_pointer (&found, g_free);
        }
      g_free (folder);
      free (objects[o]);
    }
  return found;
}

void
cc_presets_dirs (const gchar *installed, const gchar *plug_in, gchar **shipped_dir,
                 gchar **user_dir)
{
  const gchar *env = g_getenv ("CUDA_CONVOLVE_PRESET_DIR");
  gchar *profile = gimp_profile ();
  gchar *beside = env && *env ? NULL : presets_beside ();

  if (env && *env)
    *shipped_dir = g_strdup (env);
  else if (beside)
    *shipped_dir = g_strdup (beside);
  else if (g_file_test (installed, G_FILE_TEST_IS_DIR))
    *shipped_dir = g_strdup (installed);
  else
    *shipped_dir = g_build_filename (profile, "plug-ins", plug_in, "presets", NULL);
  *user_dir = g_build_filename (profile, plug_in, "presets", NULL);
  g_free (beside);
  g_free (profile);
}

bool
cc_preset_find_mask (const char *id, CcMask *mask, double **values, char *message, size_t size)
{
  GError *error = NULL;
  gchar *shipped, *user;
  CcPreset *p;

  cc_presets_dirs (CC_SHIPPED_PRESET_DIR, CC_PLUG_IN_NAME, &shipped, &user);
  p = cc_presets_find (shipped, user, id, &error);
  g_free (shipped);
  g_free (user);
  *values = NULL;
  if (!p)
    {
      g_strlcpy (message, error->message, size);
      g_error_free (error);
      return false;
    }
  if (!(*values = malloc (sizeof (double) * p->width * p->height)))
    g_strlcpy (message, "out of memory", size);
  else
    {
      memcpy (*values, p->matrix, sizeof (double) * p->width * p->height);
      *mask = (CcMask) { p->width, p->height, *values, p->divisor, p->offset };
    }
  cc_preset_free (p);
  return *values != NULL;
}
