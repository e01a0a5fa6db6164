; plug-in-cuda-convolve, plug-in-cuda-deconvolve and plug-in-cuda-estimate-blur
; in real GIMP 3, from Script-Fu, called the way a user types them.  A 5x3 image, black in columns 0-1 and white in 2-4, gives
; hand-computed results.  By default they are in linear light, as GIMP's own
; Convolution Matrix works: a third of white is sRGB 156.19, two thirds
; 213.18, a half 187.52; #:linear FALSE gives GIMP 2's 85 and 170.  Run by tests/test-gimp.sh; it signals an error at
; the end when anything failed, which makes GIMP exit non-zero.
;
; SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception

(define checks 0)
(define failures 0)

(define (check ok what)
  (set! checks (+ checks 1))
  (if ok
      (begin (display "ok   - ") (display what) (newline))
      (begin (set! failures (+ failures 1))
             (display "FAIL - ") (display what) (newline))))

(define (red layer x y) (car (car (gimp-drawable-get-pixel layer x y))))

; A fresh 5x3 RGB image: black columns 0-1, white columns 2-4.
(define (step-image)
  (let* ((img (car (gimp-image-new 5 3 RGB)))
         (layer (car (gimp-layer-new img "step" 5 3 RGB-IMAGE 100 LAYER-MODE-NORMAL))))
    (gimp-image-insert-layer img layer 0 0)
    (gimp-context-set-foreground '(255 255 255))
    (gimp-drawable-fill layer FILL-FOREGROUND)
    (gimp-image-select-rectangle img CHANNEL-OP-REPLACE 0 0 2 3)
    (gimp-context-set-foreground '(0 0 0))
    (gimp-drawable-edit-fill layer FILL-FOREGROUND)
    (gimp-selection-none img)
    (gimp-image-clean-all img)
    (list img layer)))

; A preset: box-3 blurs the edge to 1/3 and 2/3 of white, in linear light.
(let* ((il (step-image)) (img (car il)) (layer (cadr il))
       (result (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img
                                      #:drawables (vector layer) #:preset "box-3")))
  (check (and (= (red layer 0 1) 0) (= (red layer 1 1) 156) (= (red layer 2 1) 213)
              (= (red layer 3 1) 255))
         "preset box-3 gives 0 156 213 255 across the edge (linear light)")
  (check (equal? (car result) "cpu") "method-used is cpu without a GPU")
  (check (> (string-length (cadr result)) 0) "device is named")
  (check (= (car (gimp-image-is-dirty img)) 1) "the image is dirty afterwards")
  (gimp-image-delete img))

; An explicit 1D matrix: the same blur along the row.
(let* ((il (step-image)) (img (car il)) (layer (cadr il)))
  (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector layer)
                         #:mask-width 3 #:mask-height 1 #:matrix (vector 1.0 1.0 1.0)
                         #:divisor 3.0)
  (check (and (= (red layer 1 0) 156) (= (red layer 2 2) 213))
         "explicit 3x1 matrix, divisor 3")
  (gimp-image-delete img))

; #:linear FALSE: GIMP 2's convmatrix, on the perceptual values.
(let* ((il (step-image)) (img (car il)) (layer (cadr il)))
  (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector layer)
                         #:preset "box-3" #:linear FALSE)
  (check (and (= (red layer 1 1) 85) (= (red layer 2 1) 170))
         "linear FALSE: box-3 gives 85 170 on the perceptual values")
  (gimp-image-delete img))

; Channel toggles: red and blue off keep their values; green is blurred.
(let* ((il (step-image)) (img (car il)) (layer (cadr il)))
  (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector layer)
                         #:preset "box-3" #:red FALSE #:blue FALSE)
  (let ((p (car (gimp-drawable-get-pixel layer 1 1))))
    (check (and (= (car p) 0) (= (cadr p) 156) (= (caddr p) 0))
           "red and blue off: (0 156 0) at the edge"))
  (gimp-image-delete img))

; GEGL's border names: "none" is zero, and white is opaque white beyond.
(let* ((il (step-image)) (img (car il)) (layer (cadr il)))
  (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector layer)
                         #:mask-width 3 #:mask-height 1 #:matrix (vector 1.0 1.0 1.0)
                         #:divisor 3.0 #:border "white")
  (check (= (red layer 0 1) 156) "border white: a third of white at the black left edge")
  (gimp-image-delete img))

; sobel-x with its offset: flat areas a linear half (0.5 -> 188), the edge
; white.
(let* ((il (step-image)) (img (car il)) (layer (cadr il)))
  (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector layer)
                         #:preset "sobel-x")
  (check (and (= (red layer 0 1) 188) (= (red layer 1 1) 255) (= (red layer 4 1) 188))
         "preset sobel-x: 188 on flat areas, 255 on the edge")
  (gimp-image-delete img))

; Border zero: the white right edge darkens by a third.
(let* ((il (step-image)) (img (car il)) (layer (cadr il)))
  (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector layer)
                         #:mask-width 3 #:mask-height 1 #:matrix (vector 1.0 1.0 1.0)
                         #:divisor 3.0 #:border "none")
  (check (= (red layer 4 1) 213) "border none (zero): 2/3 white at the right edge")
  (gimp-image-delete img))

; A selection: only column 1 changes.
(let* ((il (step-image)) (img (car il)) (layer (cadr il)))
  (gimp-image-select-rectangle img CHANNEL-OP-REPLACE 1 0 1 3)
  (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector layer)
                         #:preset "box-3")
  (check (and (= (red layer 1 1) 156) (= (red layer 2 1) 255) (= (red layer 0 1) 0))
         "selection: column 1 blurred from its real neighbours, the rest unchanged")
  (gimp-image-delete img))

; The preset list.
(let* ((result (car (plug-in-cuda-convolve-presets)))
       (ids (if (vector? result) (vector->list result) result)))
  (check (and (> (length ids) 14) (member "gaussian-7" ids) (member "motion-blur-v-9" ids))
         "plug-in-cuda-convolve-presets lists the shipped ids"))

; Bad input: refused, pixels and the undo state as they were.
(define (refused what thunk)
  (let* ((il (step-image)) (img (car il)) (layer (cadr il)))
    (check (eq? (catch 'refused (begin (thunk img layer) 'ran)) 'refused)
           (string-append what ": refused"))
    (check (and (= (red layer 1 1) 0) (= (red layer 2 1) 255)
                (= (car (gimp-image-is-dirty img)) 0))
           (string-append what ": pixels untouched"))
    (gimp-image-delete img)))

(refused "even mask-width"
  (lambda (img layer)
    (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img
                           #:drawables (vector layer) #:mask-width 4)))
(refused "matrix of the wrong length"
  (lambda (img layer)
    (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img
                           #:drawables (vector layer) #:matrix (vector 1.0 2.0))))
(refused "divisor 0"
  (lambda (img layer)
    (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img
                           #:drawables (vector layer) #:matrix (vector 1 1 1 1 1 1 1 1 1)
                           #:divisor 0.0)))
(refused "unknown preset"
  (lambda (img layer)
    (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img
                           #:drawables (vector layer) #:preset "no-such-preset")))
(refused "unknown border"
  (lambda (img layer)
    (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img
                           #:drawables (vector layer) #:border "sideways")))
(refused "unknown method"
  (lambda (img layer)
    (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img
                           #:drawables (vector layer) #:method "fastest")))
(refused "border Black (names are lower case)"
  (lambda (img layer)
    (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img
                           #:drawables (vector layer) #:border "Black")))
(refused "mask-height 1025"
  (lambda (img layer)
    (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img
                           #:drawables (vector layer) #:mask-height 1025)))
(refused "shape disc, radius 0"
  (lambda (img layer)
    (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img
                           #:drawables (vector layer) #:shape "disc" #:radius 0.0)))
(refused "shape polygon, blades 2"
  (lambda (img layer)
    (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img
                           #:drawables (vector layer) #:shape "polygon" #:blades 2)))
; A layer as the mask, from Script-Fu: a 1x1 white layer of another image
; is the identity; a black one weighs nothing and is refused.
(let* ((il (step-image)) (img (car il)) (layer (cadr il))
       (mimg (car (gimp-image-new 1 1 RGB)))
       (mlayer (car (gimp-layer-new mimg "m" 1 1 RGB-IMAGE 100 LAYER-MODE-NORMAL))))
  (gimp-image-insert-layer mimg mlayer 0 0)
  (gimp-context-set-foreground '(255 255 255))
  (gimp-drawable-fill mlayer FILL-FOREGROUND)
  (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector layer)
                         #:mask-drawable mlayer)
  (check (and (= (red layer 1 1) 0) (= (red layer 2 1) 255))
         "mask-drawable: a 1x1 white layer is the identity")
  (gimp-image-delete img)
  (gimp-context-set-foreground '(0 0 0))
  (gimp-drawable-fill mlayer FILL-FOREGROUND)
  (refused "mask-drawable all black"
    (lambda (img layer)
      (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img
                             #:drawables (vector layer) #:mask-drawable mlayer)))
  (gimp-image-delete mimg))

;; plug-in-cuda-deconvolve.  The step blurred by box-3 along the rows
;; (156 213 across the edge), then restored by the same mask: the edge
;; comes back sharper than the blur left it.
(define (blurred-step)
  (let* ((il (step-image)) (img (car il)) (layer (cadr il)))
    (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector layer)
                           #:mask-width 3 #:mask-height 1 #:matrix (vector 1.0 1.0 1.0)
                           #:divisor 3.0)
    (gimp-image-clean-all img)
    il))

; Richardson-Lucy, 200 iterations from the image.
(let* ((il (blurred-step)) (img (car il)) (layer (cadr il))
       (dark (red layer 1 1)) (light (red layer 2 1))
       (result (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                                        #:drawables (vector layer) #:mask-width 3
                                        #:mask-height 1 #:matrix (vector 1.0 1.0 1.0)
                                        #:iterations 200 #:init "image")))
  (check (and (= dark 156) (= light 213)) "deconvolve: the blur leaves 156 and 213")
  (check (and (< (red layer 1 1) (- dark 40)) (> (red layer 2 1) (+ light 20)))
         (string-append "deconvolve: Richardson-Lucy sharpens the edge: "
                        (number->string (red layer 1 1)) " "
                        (number->string (red layer 2 1))))
  (check (equal? (car result) "cpu") "deconvolve: method-used is cpu without a GPU")
  (check (> (string-length (cadr result)) 0) "deconvolve: device is named")
  (check (= (car (gimp-image-is-dirty img)) 1) "deconvolve: the image is dirty afterwards")
  (gimp-image-delete img))

; The message of the error 'thunk' raises, or #f where it raises none.
(define (error-message thunk)
  (call/cc
    (lambda (return)
      (let ((hook *error-hook*))
        (set! *error-hook* (lambda (message . irritants)
                             (set! *error-hook* hook)
                             (return message)))
        (thunk)
        (set! *error-hook* hook)
        #f))))

; Whether 'word' is in 'text': Script-Fu's Scheme has no string search.
(define (contains? text word)
  (let loop ((i 0))
    (cond ((> (+ i (string-length word)) (string-length text)) #f)
          ((string=? (substring text i (+ i (string-length word))) word) #t)
          (else (loop (+ i 1))))))

; Wiener with a little noise: the edge sharpened too.  Where the CPU has no
; Wiener (a build without FFTW: test-gimp.sh's CC_CPU_WIENER=0), refused
; naming FFTW, the image as it was and clean.
(let* ((il (blurred-step)) (img (car il)) (layer (cadr il))
       (wiener (lambda ()
                 (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                                          #:drawables (vector layer) #:mask-width 3
                                          #:mask-height 1 #:matrix (vector 1.0 1.0 1.0)
                                          #:algorithm "wiener" #:noise 0.001))))
  (if (equal? (getenv "CC_CPU_WIENER") "0")
      (let ((message (error-message wiener)))
        (display "SKIP: Wiener on the CPU: this build is without FFTW (its refusal checked)")
        (newline)
        (check (and message (contains? message "FFTW"))
               (string-append "deconvolve: Wiener is refused, naming FFTW: "
                              (if message message "no error")))
        (check (and (= (red layer 1 1) 156) (= (red layer 2 1) 213)
                    (= (car (gimp-image-is-dirty img)) 0))
               "deconvolve: Wiener refused: pixels untouched"))
      (begin
        (wiener)
        (check (and (< (red layer 1 1) 156) (> (red layer 2 1) 213))
               (string-append "deconvolve: Wiener sharpens the edge: "
                              (number->string (red layer 1 1)) " "
                              (number->string (red layer 2 1))))))
  (gimp-image-delete img))

; Its bad input, some of it values Python's config cannot hold (0
; iterations, NaN noise): refused, the image as it was and clean.
(refused "deconvolve, 0 iterations"
  (lambda (img layer)
    (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                             #:drawables (vector layer) #:shape "disc" #:radius 1.5
                             #:iterations 0)))
(refused "deconvolve, NaN noise"
  (lambda (img layer)
    (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                             #:drawables (vector layer) #:shape "disc" #:radius 1.5
                             #:algorithm "wiener" #:noise (/ 0.0 0.0))))
(refused "deconvolve, tv-weight 0.5"
  (lambda (img layer)
    (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                             #:drawables (vector layer) #:shape "disc" #:radius 1.5
                             #:tv-weight 0.5)))
(refused "deconvolve, negative weights for Richardson-Lucy"
  (lambda (img layer)
    (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                             #:drawables (vector layer) #:preset "sharpen")))
(refused "deconvolve, an offset"
  (lambda (img layer)
    (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                             #:drawables (vector layer) #:preset "edge-laplacian"
                             #:algorithm "wiener")))
(refused "deconvolve, algorithm Wiener (names are lower case)"
  (lambda (img layer)
    (plug-in-cuda-deconvolve #:run-mode RUN-NONINTERACTIVE #:image img
                             #:drawables (vector layer) #:algorithm "Wiener")))

;; plug-in-cuda-estimate-blur: a photograph blurred by a disc of radius 6
;; (mirror border), its blur estimated as a disc within 10%, nothing
;; restored.  A slimmed GIMP (the GPU machine's) may have no PNM loader.
(if (= (car (gimp-pdb-procedure-exists "file-pnm-load")) 0)
    (begin
      (display "SKIP: estimate-blur from Script-Fu: this GIMP has no PNM loader for the photograph")
      (newline))
    (let* ((img (car (gimp-image-new 256 192 RGB)))
           (layer (car (gimp-file-load-layer RUN-NONINTERACTIVE img
                         (string-append (getenv "CC_TEST_DIR")
                                        "/../../data/photo-astronaut.ppm")))))
      (gimp-image-insert-layer img layer 0 0)
      (plug-in-cuda-convolve #:run-mode RUN-NONINTERACTIVE #:image img #:drawables (vector layer)
                             #:shape "disc" #:radius 6.0 #:border "mirror")
      (let ((result (plug-in-cuda-estimate-blur #:run-mode RUN-NONINTERACTIVE #:image img
                                                #:drawables (vector layer) #:shape "disc"
                                                #:restore FALSE)))
        (check (and (equal? (car result) "disc") (< (abs (- (cadr result) 6.0)) 0.6)
                    (> (list-ref result 3) 0.0) (<= (list-ref result 3) 1.0))
               (string-append "estimate-blur: a disc of radius "
                              (number->string (cadr result)) ", confidence "
                              (number->string (list-ref result 3)))))
      (gimp-image-delete img)))

(display "Script-Fu: ") (display checks) (display " checks, ")
(display failures) (display " failures") (newline)
(if (> failures 0) (error "Script-Fu checks failed"))
